// The shared analyses of a diagnosis, computed on first use (diagnosis_context.h).
#include "analysis/diagnose/diagnosis_context.h"

#include <algorithm>
#include <array>

#include "base/hash.h"

namespace cprof {
namespace {

constexpr std::array<std::string_view, 4> kProblemIds = {"none", "high_p99_latency", "low_throughput",
                                                         "high_memory"};

uint64_t Mix(uint64_t x) {  // splitmix64 finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}


}  // namespace

std::string_view ProblemId(Problem p) { return kProblemIds[static_cast<size_t>(p)]; }

std::optional<Problem> ProblemFromId(std::string_view id) {
  for (size_t i = 0; i < kProblemIds.size(); ++i)
    if (kProblemIds[i] == id) return static_cast<Problem>(i);
  return std::nullopt;
}

std::string_view DeviceKindId(DeviceKind k) {
  switch (k) {
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kNpu: return "npu";
  }
  return "cpu";
}

DiagnosisContext::DiagnosisContext(const Trace& trace, const DiagnoseOptions& options)
    : trace_(trace), options_(options) {}

DiagnosisContext::~DiagnosisContext() = default;

int64_t DiagnosisContext::span_start_ns() const { return std::max(trace_.start_ns, window().start_ns); }
int64_t DiagnosisContext::span_end_ns() const { return std::min(trace_.end_ns, window().end_ns); }

const std::vector<Step>& DiagnosisContext::steps() const {
  if (!steps_) steps_ = DetectSteps(trace_, window());
  return *steps_;
}

const OpStatsTable& DiagnosisContext::op_stats() const {
  if (!op_stats_) op_stats_ = ComputeOpStats(trace_, window());
  return *op_stats_;
}

const DeviceIntervals& DiagnosisContext::device_intervals() const {
  if (!device_intervals_) device_intervals_ = CollectDeviceIntervals(trace_, window());
  return *device_intervals_;
}

const std::optional<GpuTimeline>& DiagnosisContext::device_timeline() const {
  if (!device_timeline_) device_timeline_ = ComputeGpuTimeline(device_intervals());
  return *device_timeline_;
}

const std::vector<StepGpuTimeline>& DiagnosisContext::device_timeline_per_step() const {
  if (!device_timeline_per_step_) {
    device_timeline_per_step_.emplace();
    if (!device_intervals().empty() && !steps().empty())
      *device_timeline_per_step_ = ComputeGpuTimelinePerStep(device_intervals(), steps());
  }
  return *device_timeline_per_step_;
}

const DeviceWorkClassifier& DiagnosisContext::device_work() const {
  if (!device_work_) device_work_ = std::make_unique<DeviceWorkClassifier>(trace_);
  return *device_work_;
}

DeviceKind DiagnosisContext::device_kind() const {
  const std::optional<GpuTimeline>& tl = device_timeline();
  if (!tl) return DeviceKind::kCpu;
  return tl->has_npu && !tl->has_gpu ? DeviceKind::kNpu : DeviceKind::kGpu;
}

uint64_t DiagnosisContext::content_hash() const {
  if (!content_hash_) {
    // A sum of per-slice hashes: independent of row order and of track ids, which differ between
    // importers of the same content.
    uint64_t sum = 0;
    const SliceTable& s = trace_.slices;
    std::vector<uint64_t> name_hash(trace_.strings.size(), 0);
    for (uint32_t row = 0; row < s.size(); ++row) {
      const size_t id = Index(s.name_id[row]);
      if (name_hash[id] == 0) name_hash[id] = Fnv1a(trace_.Str(s.name_id[row])) | 1;
      const uint64_t t = static_cast<uint64_t>(s.ts_ns[row] - trace_.start_ns);
      sum += Mix(name_hash[id] ^ Mix(t ^ Mix(static_cast<uint64_t>(s.dur_ns[row]))));
    }
    content_hash_ = Mix(sum ^ s.size());
  }
  return *content_hash_;
}

const std::vector<StepBreakdown>& DiagnosisContext::step_breakdown() const {
  if (!step_breakdown_) step_breakdown_ = ComputeStepBreakdown(trace_, steps(), device_intervals(), main_thread());
  return *step_breakdown_;
}

const std::vector<uint32_t>& DiagnosisContext::device_rows() const {
  if (!device_rows_) {
    device_rows_.emplace();
    const DeviceWorkClassifier& classify = device_work();
    for (uint32_t track = 0; track < trace_.tracks.size(); ++track) {
      if (!IsDeviceTrack(trace_.tracks.kind[track])) continue;
      auto [b, e] = trace_.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r)
        if (InWindow(r) && trace_.slices.dur_ns[r] >= 0 && classify(r) != DeviceWork::kNone) device_rows_->push_back(r);
    }
    const auto& ts = trace_.slices.ts_ns;
    std::stable_sort(device_rows_->begin(), device_rows_->end(), [&](uint32_t a, uint32_t b) { return ts[a] < ts[b]; });
  }
  return *device_rows_;
}

const std::vector<uint32_t>& DiagnosisContext::host_op_rows() const {
  if (!host_op_rows_) {
    host_op_rows_.emplace();
    const SliceTable& s = trace_.slices;
    const std::optional<StringId> cpu_op = trace_.strings.Find("cpu_op");
    bool has_cpu_op = false;
    for (uint32_t r = 0; cpu_op && r < s.size() && !has_cpu_op; ++r)
      has_cpu_op = s.category_id[r] == *cpu_op && trace_.tracks.kind[Index(s.track_id[r])] == TrackKind::kThread;
    std::vector<int8_t> is_step(trace_.strings.size(), -1);
    for (uint32_t track = 0; track < trace_.tracks.size(); ++track) {
      if (trace_.tracks.kind[track] != TrackKind::kThread) continue;
      auto [b, e] = trace_.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (!InWindow(r) || s.dur_ns[r] < 0) continue;
        if (has_cpu_op && s.category_id[r] != *cpu_op) continue;
        int8_t& step = is_step[Index(s.name_id[r])];
        if (step < 0) step = trace_.Str(s.name_id[r]).starts_with("ProfilerStep#") ? 1 : 0;
        if (step == 0) host_op_rows_->push_back(r);
      }
    }
  }
  return *host_op_rows_;
}

const std::vector<int64_t>& DiagnosisContext::self_ns() const {
  if (!self_ns_) {
    const SliceTable& s = trace_.slices;
    self_ns_.emplace(s.size());
    std::vector<int64_t>& self = *self_ns_;
    for (size_t r = 0; r < s.size(); ++r) self[r] = std::max<int64_t>(0, s.dur_ns[r]);
    for (size_t r = 0; r < s.size(); ++r)
      if (s.parent_id[r] != kNoSlice) self[Index(s.parent_id[r])] -= std::max<int64_t>(0, s.dur_ns[r]);
    for (int64_t& v : self) v = std::max<int64_t>(0, v);
  }
  return *self_ns_;
}

std::optional<TrackId> DiagnosisContext::main_thread() const {
  if (!main_thread_) {
    main_thread_.emplace();
    if (!steps().empty() && steps().front().slice_row < trace_.slices.size()) {
      *main_thread_ = trace_.slices.track_id[steps().front().slice_row];
    } else {
      int64_t best = -1;
      for (uint32_t track = 0; track < trace_.tracks.size(); ++track) {
        if (trace_.tracks.kind[track] != TrackKind::kThread) continue;
        auto [b, e] = trace_.track_slices(TrackId{track});
        int64_t total = 0;
        for (uint32_t r = b; r < e; ++r)
          if (trace_.slices.depth[r] == 0 && InWindow(r)) total += std::max<int64_t>(0, trace_.slices.dur_ns[r]);
        if (total > best) {
          best = total;
          *main_thread_ = TrackId{track};
        }
      }
    }
  }
  return *main_thread_;
}

const std::vector<Step>& DiagnosisContext::steps_or_span() const {
  if (!steps_or_span_) {
    steps_or_span_ = steps();
    if (steps_or_span_->empty()) {
      Step s;
      s.id = -1;
      s.start_ns = span_start_ns();
      s.dur_ns = span_ns();
      s.name = "whole trace";
      s.source = StepSource::kRepeatedSpan;
      s.slice_row = UINT32_MAX;
      steps_or_span_->push_back(s);
    }
  }
  return *steps_or_span_;
}

EvidenceEvent DiagnosisContext::EventRef(uint32_t row, std::string note) const {
  EvidenceEvent e;
  e.name = std::string(trace_.Str(trace_.slices.name_id[row]));
  e.track_path = trace_.TrackPath(trace_.slices.track_id[row]);
  e.ts_ns = trace_.slices.ts_ns[row];
  e.dur_ns = trace_.slices.dur_ns[row];
  e.slice_row = row;
  e.note = std::move(note);
  return e;
}

}  // namespace cprof
