// Synthetic host traces for the host-side rules' tests: steps on one thread, operators, spans,
// sampled Python frames, counters, allocator events and metadata, built with TraceBuilder.
//
//   HostTraceBuilder h;
//   for (int i = 0; i < 10; ++i) h.Step(i, i * 10_ms, 10_ms);
//   h.Op("aten::addmm", 0, 3'000'000);
//   Trace t = h.Finish();
//   std::vector<Finding> f = RunRule(*MakeHostGapRule(), t);
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "model/trace_builder.h"

namespace cprof::testing_host {

inline constexpr int64_t kMs = 1'000'000;

class HostTraceBuilder {
 public:
  HostTraceBuilder() : b_(&trace_) { thread_ = b_.ThreadTrack(1, 1); }

  TrackId thread() const { return thread_; }
  TraceBuilder& builder() { return b_; }

  void Step(int64_t id, int64_t ts, int64_t dur) { Slice(thread_, "ProfilerStep#" + std::to_string(id), "user_annotation", ts, dur); }
  void Op(const std::string& name, int64_t ts, int64_t dur) { Slice(thread_, name, "cpu_op", ts, dur); }
  // An operator with Kineto's "Input Dims" argument ("[[2, 64, 16, 16], [128, 64, 1, 1]]").
  void Op(const std::string& name, int64_t ts, int64_t dur, const std::string& input_dims) {
    b_.args().Add(b_.Intern("Input Dims"), Value::String(b_.Intern(input_dims)));
    b_.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = thread_, .name_id = b_.Intern(name),
                 .category_id = b_.Intern("cpu_op"), .arg_set_id = b_.args().Finish()});
  }
  void Span(const std::string& name, const std::string& category, int64_t ts, int64_t dur) {
    Slice(thread_, name, category, ts, dur);
  }
  // A sampled Python frame on the thread's "python (sampled)" child track.
  void PyFrame(const std::string& name, int64_t ts, int64_t dur) {
    if (py_ == kNoTrack) py_ = b_.ChildTrack(thread_, TrackKind::kThread, b_.Intern("python (sampled)"));
    Slice(py_, name, "python_function", ts, dur);
  }
  void Slice(TrackId track, const std::string& name, const std::string& category, int64_t ts, int64_t dur) {
    b_.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = track, .name_id = b_.Intern(name), .category_id = b_.Intern(category)});
  }
  void Alloc(int64_t ts, int64_t bytes, uint64_t address = 0, int64_t device = -1, int64_t total_allocated = -1,
             int64_t total_reserved = -1) {
    b_.AddMemoryEvent({.ts_ns = ts, .track_id = thread_, .device = device, .address = address, .bytes = bytes,
                       .total_allocated = total_allocated, .total_reserved = total_reserved});
  }
  // A per-thread cpu.percent counter value for thread `tid` of process 1.
  void ThreadCpu(int64_t tid, int64_t ts, double percent) {
    TrackId t = b_.ChildTrack(b_.ThreadTrack(1, tid), TrackKind::kCounter, b_.Intern("cpu.percent"));
    b_.AddCounter(t, ts, percent);
  }
  // A CPU sample of the thread (innermost frame `function`).
  void CpuSample(int64_t ts, const std::string& function = "compute") {
    FrameId fr = b_.AddFrame({.function_id = b_.Intern(function)});
    b_.AddSample({.ts_ns = ts, .track_id = thread_, .stack_id = b_.AddStack(kNoStack, fr)});
  }
  void Meta(const std::string& key, const std::string& value) { b_.SetMetadataString(key, value); }
  void MetaInt(const std::string& key, int64_t value) { b_.SetMetadata(key, Value::Int(value)); }

  Trace Finish() {
    EXPECT_TRUE(b_.Finalize().ok());
    return std::move(trace_);
  }

 private:
  Trace trace_;
  TraceBuilder b_;
  TrackId thread_ = kNoTrack;
  TrackId py_ = kNoTrack;
};

// The value of a finding's metric `name`; a test failure (and -1) when it has none.
inline double Metric(const Finding& f, const std::string& name) {
  for (const FindingMetric& m : f.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

inline std::vector<Finding> RunRule(const Rule& rule, const Trace& trace) {
  DiagnoseOptions options;
  DiagnosisContext ctx(trace, options);
  std::vector<Finding> out;
  rule.Run(ctx, out);
  return out;
}

// Every finding a rule returns must be complete enough for the report.
inline void ExpectWellFormed(const Finding& f) {
  EXPECT_FALSE(f.title.empty());
  EXPECT_FALSE(f.summary.empty());
  EXPECT_FALSE(f.saving_method.empty());
  EXPECT_GT(f.confidence, 0.0);
  EXPECT_LE(f.confidence, 1.0);
  EXPECT_NEAR(f.confidence, ComputeConfidence(f.confidence_terms), 1e-12);
  EXPECT_LE(f.saving_ns, std::max<int64_t>(f.cost_total_ns, 0));
  EXPECT_FALSE(f.metrics.empty());
  EXPECT_FALSE(f.suggestions.empty());
}

}  // namespace cprof::testing_host
