// Formatting helpers and the static page of the validation and diff reports.
#include "report/compare/report_text.h"

#include <cmath>

#include <fmt/core.h>

#include "report/visualize/html_shell.h"

namespace cprof {

std::string FormatInUnit(double v, std::string_view unit) {
  if (std::isnan(v)) return "n/a";
  const double a = std::fabs(v);
  if (unit == "ns") {
    if (a >= 1e9) return fmt::format("{:.3f} s", v / 1e9);
    if (a >= 1e6) return fmt::format("{:.3f} ms", v / 1e6);
    if (a >= 1e3) return fmt::format("{:.3f} us", v / 1e3);
    return fmt::format("{:.0f} ns", v);
  }
  if (unit == "bytes") {
    if (a >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
    if (a >= 1024.0 * 1024) return fmt::format("{:.2f} MiB", v / (1024.0 * 1024));
    if (a >= 1024.0) return fmt::format("{:.2f} KiB", v / 1024.0);
    return fmt::format("{:.0f} B", v);
  }
  if (unit == "percent") return fmt::format("{:.2f}%", v);
  return fmt::format("{:.4g} {}", v, unit);
}

std::string FormatPct(double pct) {
  if (std::isnan(pct)) return "n/a";
  return fmt::format("{:+.2f}%", pct);
}

std::string FormatP(double p) {
  if (std::isnan(p)) return "n/a";
  if (p < 1e-16) return "< 1e-16";
  if (p < 1e-3) return fmt::format("{:.2e}", p);
  return fmt::format("{:.4f}", p);
}

std::string Html(std::string_view text) { return EscapeHtml(text); }

std::string MdCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out.push_back(c);
  }
  return out;
}

std::string StaticHtmlPage(std::string_view title, std::string_view body) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // No script at all: the report is a document, and safe to open from anywhere.
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + Html(title) + " — cann-profiler</title>\n<style>\n";
  html += R"css(body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1100px;color:#1d2330;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #dde}
table{border-collapse:collapse;margin:.6em 0;width:100%}th,td{border:1px solid #d6d9e0;padding:.3em .5em;text-align:right;vertical-align:top}
th{background:#f3f4f8}td.l,th.l{text-align:left}code{font-size:.92em;background:#f3f4f8;padding:0 .25em}
.verdict{display:inline-block;padding:.15em .6em;border-radius:.3em;font-weight:600}
.improved{background:#d9f2df;color:#12632b}.regressed{background:#fadbd8;color:#8c1c13}.unchanged{background:#eceef3;color:#3b4252}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.4em .8em;margin:.5em 0}
.small{color:#5b6270;font-size:.9em}svg{background:#fbfbfd;border:1px solid #e3e5ea}
@media print{body{margin:0;max-width:none}h2{page-break-after:avoid}table{page-break-inside:avoid}}
)css";
  html += "</style>\n</head>\n<body>\n";
  html += body;
  html += "\n</body>\n</html>\n";
  return html;
}

}  // namespace cprof
