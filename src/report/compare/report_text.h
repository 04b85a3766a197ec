// Small text helpers shared by the validation and diff reports: numbers in a metric's unit,
// percentages, p-values, and a static HTML page (no script, inline CSS) around a body.
//
//   FormatInUnit(1.5e6, "ns") == "1.500 ms";   FormatPct(2.345) == "+2.35%";
//   std::string html = StaticHtmlPage("validation", body_html);
#pragma once

#include <string>
#include <string_view>

namespace cprof {

// A value in `unit` for humans: ns as ms/us/s, bytes as KiB/MiB/GiB, percent with "%", else %.4g.
std::string FormatInUnit(double value, std::string_view unit);
// "+2.35%", "-0.40%", "n/a" for NaN.
std::string FormatPct(double pct);
// "0.0123", "3.1e-07", "< 1e-16", "n/a".
std::string FormatP(double p);
// A complete HTML document with the report stylesheet; `title` is escaped, `body` is HTML.
std::string StaticHtmlPage(std::string_view title, std::string_view body);
// Text escaped for HTML content and attributes.
std::string Html(std::string_view text);
// Text made safe inside a Markdown table cell ('|' and newlines escaped).
std::string MdCell(std::string_view text);

}  // namespace cprof
