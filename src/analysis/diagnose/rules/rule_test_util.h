// Small synthetic traces for the rule tests: a host thread with ProfilerStep#N steps and ops, a
// GPU stream with kernels, and a runner that applies one rule.
//
//   SyntheticTrace s;
//   s.Step(0, 1000, 1);
//   s.Op(10, 100, "aten::mm");
//   s.Kernel(20, 50, "gemm");
//   std::vector<Finding> f = RunRule(*MakeLaunchOverheadRule(), s.Finish());
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "model/trace_builder.h"

namespace cprof::testing {

class SyntheticTrace {
 public:
  SyntheticTrace() : b_(&trace_) {
    host_ = b_.ThreadTrack(1, 1);
  }
  TrackId host() const { return host_; }
  TrackId Stream(int64_t stream = 7) { return b_.StreamTrack(TrackKind::kGpuStream, 0, stream); }
  TrackId Thread(int64_t tid) { return b_.ThreadTrack(1, tid); }

  SliceId Step(int64_t ts, int64_t dur, int64_t id) {
    return Add(host_, ts, dur, "ProfilerStep#" + std::to_string(id), "user_annotation");
  }
  SliceId Op(int64_t ts, int64_t dur, std::string_view name, int64_t correlation = kNoCorrelation,
             std::string_view cat = "cpu_op") {
    return Add(host_, ts, dur, name, cat, correlation);
  }
  SliceId OpOn(TrackId track, int64_t ts, int64_t dur, std::string_view name, std::string_view cat = "cpu_op") {
    return Add(track, ts, dur, name, cat);
  }
  SliceId Kernel(int64_t ts, int64_t dur, std::string_view name, int64_t correlation = kNoCorrelation,
                 int64_t stream = 7) {
    return Add(Stream(stream), ts, dur, name, "kernel", correlation);
  }
  SliceId Add(TrackId track, int64_t ts, int64_t dur, std::string_view name, std::string_view cat,
              int64_t correlation = kNoCorrelation) {
    return b_.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = track, .name_id = b_.Intern(name),
                        .category_id = b_.Intern(cat), .correlation_id = correlation});
  }
  const Trace& Finish() {
    EXPECT_TRUE(b_.Finalize().ok());
    return trace_;
  }

 private:
  Trace trace_;
  TraceBuilder b_;
  TrackId host_;
};

inline std::vector<Finding> RunRule(const Rule& rule, const Trace& trace, const DiagnoseOptions& options = {}) {
  DiagnosisContext ctx(trace, options);
  std::vector<Finding> out;
  rule.Run(ctx, out);
  for (const Finding& f : out) {
    EXPECT_GT(f.confidence, 0) << f.title;
    EXPECT_LE(f.confidence, 1) << f.title;
    EXPECT_NEAR(f.confidence, ComputeConfidence(f.confidence_terms), 1e-12) << f.title;
    EXPECT_LE(f.saving_ns, f.cost_total_ns) << f.title;
    EXPECT_FALSE(f.saving_method.empty()) << f.title;
    EXPECT_FALSE(f.suggestions.empty()) << f.title;
    EXPECT_FALSE(f.events.empty()) << f.title;
  }
  return out;
}

}  // namespace cprof::testing
