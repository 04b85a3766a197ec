// Prints an HTML report to PDF with a headless Chromium, the way a user would print it: the
// HTML is written to a temporary file, Chromium prints it, and the PDF is moved into place.
//
//   RETURN_IF_ERROR(RenderPdfWithChromium(html, "validation_report.pdf"));
//
// Looks for `chromium`, `chromium-browser`, `google-chrome` on PATH (or $CPROF_CHROMIUM).
// kUnavailable with a message saying how to install it when none is found; kInternal when the
// browser fails. Nothing is left at `pdf_path` on failure. Runs a child process; blocks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

// The browser binary that would be used, if any.
std::optional<std::string> FindChromium();

Status RenderPdfWithChromium(std::string_view html, const std::string& pdf_path);

}  // namespace cprof
