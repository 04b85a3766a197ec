// Parsing of --scope and --sampling_rate.
#include "collect/collect_options.h"

#include <cctype>
#include <charconv>
#include <string>

namespace cprof {

StatusOr<CollectScope> ParseCollectScope(std::string_view name) {
  if (name == "full_stack" || name == "full-stack") return CollectScope::kFullStack;
  if (name == "framework") return CollectScope::kFramework;
  if (name == "host") return CollectScope::kHost;
  if (name == "hardware_only" || name == "hardware-only") return CollectScope::kHardwareOnly;
  return InvalidInput("--scope: unknown scope '{}'; expected full_stack, framework, host or hardware_only",
                      name);
}

std::string_view CollectScopeName(CollectScope s) {
  switch (s) {
    case CollectScope::kFullStack: return "full_stack";
    case CollectScope::kFramework: return "framework";
    case CollectScope::kHost: return "host";
    case CollectScope::kHardwareOnly: return "hardware_only";
  }
  return "?";
}

StatusOr<SamplingRate> ParseSamplingRate(std::string_view text) {
  std::string t;
  for (char c : text) {
    if (c != ' ') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  std::string_view unit(end, t.data() + t.size() - end);
  SamplingRate rate;
  if (ec != std::errc() || !(v > 0)) {
    return InvalidInput("--sampling_rate: '{}' is not a positive number with a unit (100%, 500Hz)", text);
  }
  if (unit == "%") {
    if (v > 100) return InvalidInput("--sampling_rate: '{}' is above 100%", text);
    rate.event_fraction = v / 100.0;
    rate.cpu_hz = kDefaultCpuSamplingHz * rate.event_fraction;
  } else if (unit == "hz") {
    rate.cpu_hz = v;
  } else if (unit == "khz") {
    rate.cpu_hz = v * 1000;
  } else {
    return InvalidInput("--sampling_rate: '{}' needs a unit: a percentage (100%) or a frequency (500Hz)",
                        text);
  }
  if (rate.cpu_hz > 10000) return InvalidInput("--sampling_rate: '{}' is above 10 kHz", text);
  return rate;
}

}  // namespace cprof
