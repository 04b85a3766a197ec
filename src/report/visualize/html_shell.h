// The HTML around the front end and the data block.
//
// The page's Content-Security-Policy allows only its own script (by SHA-256) and no connection,
// image or font from anywhere, so even a string that reached the DOM as markup could neither run
// nor phone home. The data block is base64 in a non-executable <script type=...octet-stream>.
#pragma once

#include <string>
#include <string_view>

#include "report/visualize/web_bundle.h"

namespace cprof {

// `title` is trace-derived and is escaped; `base64_data` must be base64 (no '<').
std::string BuildHtmlPage(const WebBundle& bundle, std::string_view title, std::string_view base64_data);

// Text escaped for HTML element content and attribute values.
std::string EscapeHtml(std::string_view text);

}  // namespace cprof
