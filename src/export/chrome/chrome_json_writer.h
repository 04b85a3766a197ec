// Writes a Trace as Chrome trace JSON (object form), gzip'd when the path ends in .gz.
#pragma once

#include <string>

#include "base/status.h"
#include "model/trace.h"

namespace cprof {

Status WriteChromeJson(const Trace& trace, const std::string& path);

}  // namespace cprof
