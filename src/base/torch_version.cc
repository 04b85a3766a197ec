// PyTorch version checks (torch_version.h).
#include "base/torch_version.h"

#include <charconv>

namespace cprof {

std::optional<int> TorchMajorVersion(std::string_view version) {
  if (version.empty() || version[0] < '0' || version[0] > '9') return std::nullopt;  // "?", "-1", "v2"
  int major = 0;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || end == version.data()) return std::nullopt;
  // "1.13.1", "2", "2+cpu": a number alone or followed by its separator; "12abc" is not a version.
  if (end != version.data() + version.size() && *end != '.' && *end != '+') return std::nullopt;
  return major;
}

bool TorchHasCompile(std::string_view version) {
  const std::optional<int> major = TorchMajorVersion(version);
  return !major || *major >= 2;
}

}  // namespace cprof
