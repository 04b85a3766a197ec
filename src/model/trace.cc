// Read helpers of the Trace.
#include "model/trace.h"

#include <fmt/format.h>

namespace cprof {

std::optional<Value> Trace::Metadata(std::string_view key) const {
  auto id = strings.Find(key);
  if (!id) return std::nullopt;
  for (size_t i = metadata.size(); i-- > 0;) {
    if (metadata.key_id[i] == *id) return metadata.value[i];
  }
  return std::nullopt;
}

std::string Trace::MetadataText(std::string_view key) const {
  auto v = Metadata(key);
  if (!v) return {};
  switch (v->type) {
    case Value::Type::kString: return std::string(Str(v->s));
    case Value::Type::kInt: return std::to_string(v->i);
    case Value::Type::kUint: return std::to_string(v->u);
    case Value::Type::kDouble: return fmt::format("{}", v->d);
    case Value::Type::kBool: return v->b ? "true" : "false";
    case Value::Type::kNull: return {};
  }
  return {};
}

std::optional<Value> Trace::SliceArg(uint32_t row, std::string_view key) const {
  auto id = strings.Find(key);
  if (!id) return std::nullopt;
  return args.Find(slices.arg_set_id[row], *id);
}

std::string Trace::TrackPath(TrackId t) const {
  std::string path;
  for (TrackId cur = t; cur != kNoTrack; cur = tracks.parent_id[Index(cur)]) {
    std::string_view name = Str(tracks.name_id[Index(cur)]);
    std::string part = name.empty() ? fmt::format("{} {}", TrackKindName(tracks.kind[Index(cur)]), Index(cur))
                                    : std::string(name);
    path = path.empty() ? part : part + " / " + path;
  }
  return path;
}

bool Trace::HoldsSampledFrames(TrackId t) const {
  const TrackId parent = tracks.parent_id[Index(t)];
  if (tracks.kind[Index(t)] != TrackKind::kThread || parent == kNoTrack ||
      tracks.kind[Index(parent)] != TrackKind::kThread)
    return false;
  auto [b, e] = track_slices(t);
  return b < e && Str(slices.category_id[b]) == "python_function";
}

}  // namespace cprof
