// Flow keys and the end-of-import track resolution of flow endpoints.
#include "import/json/flow_collector.h"

#include "base/hash.h"
#include "import/json/buffer_pool.h"

namespace cprof::json {
namespace {

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

inline uint64_t HashText(std::string_view s, uint64_t seed) { return Mix(Fnv1a(s, kFnv1aBasis ^ seed)); }

}  // namespace

uint64_t FlowCollector::Key(std::string_view cat, const JsonFlowId& id) {
  const uint64_t scope = HashText(cat, 0x51);
  if (id.kind == JsonFlowId::Kind::kNumber) return Mix(scope ^ Mix(id.num));
  return Mix(scope ^ HashText(id.str, 0x57));
}

void FlowCollector::Reserve(size_t n) {
  endpoints_.reserve(n);
  AdviseHugePages(endpoints_.data(), endpoints_.capacity() * sizeof(FlowEndpoint));
}

void FlowCollector::Add(int64_t pid, int64_t tid, bool device_first, const FlowEndpoint& e, TrackMapper* tracks) {
  endpoints_.push_back(e);
  if (e.track != kNoTrack) return;
  const TrackId track = tracks->KnownFlowTrack(pid, tid, device_first);
  if (track != kNoTrack) {
    endpoints_.back().track = track;
  } else {
    unresolved_.push_back({static_cast<uint32_t>(endpoints_.size() - 1), device_first, pid, tid});
  }
}

void FlowCollector::Shift(int64_t delta) {
  for (FlowEndpoint& e : endpoints_) e.ts_ns += delta;
}

void FlowCollector::Finish(TrackMapper* tracks, TraceBuilder* builder) {
  for (const Unresolved& u : unresolved_) endpoints_[u.index].track = tracks->FlowTrack(u.pid, u.tid, u.device_first);
  unresolved_ = {};
  builder->AddFlowEndpoints(std::move(endpoints_));
  endpoints_ = {};
}

}  // namespace cprof::json
