// The page's HTML shell.
#include "report/visualize/html_shell.h"

#include "report/visualize/encoding.h"

namespace cprof {

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string BuildHtmlPage(const WebBundle& bundle, std::string_view title, std::string_view base64_data) {
  std::string sha = Base64Encode(HexToBytes(bundle.js_sha256));
  std::string html;
  html.reserve(base64_data.size() + bundle.js.size() + bundle.css.size() + 2048);
  html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-";
  html += sha;
  html += "'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<meta name=\"generator\" content=\"cann-profiler visualize\">\n";
  html += "<title>";
  html += EscapeHtml(title.empty() ? std::string_view("performance map") : title);
  html += " — cann-profiler performance map</title>\n<style>";
  html += bundle.css;
  html += "</style>\n</head>\n<body>\n<div id=\"app\"></div>\n";
  html += "<script id=\"cprof-data\" type=\"application/octet-stream\">";
  html += base64_data;
  html += "</script>\n<script>";
  html += bundle.js;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace cprof
