// Names of track kinds, as they appear in JSON output and our .pb files.
#include "model/track_kind.h"

#include <array>

namespace cprof {
namespace {
constexpr std::array<std::string_view, 10> kNames = {
    "process", "thread", "device", "gpu_stream", "npu_stream",
    "communication", "counter", "async", "analysis", "cpu_core"};
}  // namespace

std::string_view TrackKindName(TrackKind kind) { return kNames[static_cast<size_t>(kind)]; }

std::optional<TrackKind> TrackKindFromName(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<TrackKind>(i);
  }
  return std::nullopt;
}

}  // namespace cprof
