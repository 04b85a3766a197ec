// The JSON layer the Kernel Tuner cache reader and the JSON space readers share (nlohmann-json).
// Internal to src/tune: callers outside it use kernel_tuner_cache.h and space_file.h.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "tune/kernel_tuner_cache.h"
#include "tune/value.h"

namespace cprof::tune {

// Parses a cache or space file's text: Python's NaN / Infinity tokens are read as null, a cache cut
// off before its closing braces (Kernel Tuner appends as it goes) as complete, and an error names
// `origin` and where the text broke.
StatusOr<nlohmann::json> ParseTunerJson(std::string_view text, const std::string& origin);

// A parameter value: an integer, a float, a string, or a bool (as 0 / 1); nullopt for others.
std::optional<Value> JsonValue(const nlohmann::json& j);

// A Kernel Tuner cache or T4 results, already parsed (see ParseKernelTunerCache).
StatusOr<KernelTunerCache> KernelTunerCacheFromJson(const nlohmann::json& j, const std::string& origin,
                                                    bool with_records);

}  // namespace cprof::tune
