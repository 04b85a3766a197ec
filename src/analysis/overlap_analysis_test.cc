// Ascend Overlap Analysis per step (torch_npu's step_trace_time rule) on a small trace.
#include "analysis/overlap_analysis.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof {
namespace {

class OverlapAnalysisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    b_ = std::make_unique<TraceBuilder>(&trace_);
    TrackId group = b_->ProcessTrack(1000);
    for (const char* name : {"Computing", "Communication", "Communication(Not Overlapped)", "Free"}) {
      tracks_[name] = b_->ChildTrack(group, TrackKind::kAnalysis, b_->Intern(name));
    }
    cpu_ = b_->ThreadTrack(1, 1);
    npu_ = b_->StreamTrack(TrackKind::kNpuStream, 0, 2);
    hccl_ = b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kCommunication, b_->Intern("Group 0 Communication"));
  }
  SliceId Add(TrackId t, int64_t ts, int64_t dur, std::string_view name) {
    return b_->AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b_->Intern(name)});
  }
  void Overlap(std::string_view name, int64_t ts, int64_t dur) { Add(tracks_[std::string(name)], ts, dur, name); }

  Trace trace_;
  std::unique_ptr<TraceBuilder> b_;
  std::map<std::string, TrackId> tracks_;
  TrackId cpu_, npu_, hccl_;
};

TEST_F(OverlapAnalysisTest, SumsPerStepWindow) {
  Add(cpu_, 1000, 5000, "ProfilerStep#7");
  SliceId launch = Add(cpu_, 1100, 10, "Conv2D");
  SliceId late_launch = Add(cpu_, 5900, 10, "aclnnAdd");
  SliceId task = Add(npu_, 2000, 100, "Conv2D");
  SliceId late_task = Add(npu_, 6500, 300, "Add");
  // Step 7's window: [2000, max(6800, 6000)) = [2000, 6800).
  Overlap("Computing", 2000, 100);
  Overlap("Communication(Not Overlapped)", 2100, 400);
  Overlap("Communication", 2050, 450);
  Overlap("Free", 2500, 1000);
  Overlap("Computing", 6500, 300);
  Overlap("Computing", 7000, 50);  // after the window: another step's
  Add(hccl_, 3000, 200, "hcom_receive__1_2");
  Overlap("Free", 1500, 10);  // before the device start: not this step
  b_->AddFlow(launch, task, FlowKind::kHostToDevice);
  b_->AddFlow(late_launch, late_task, FlowKind::kHostToDevice);
  ASSERT_TRUE(b_->Finalize().ok());

  ASSERT_TRUE(HasOverlapAnalysis(trace_));
  std::vector<Step> steps(1);
  steps[0].id = 7;
  steps[0].start_ns = 1000;
  steps[0].dur_ns = 5000;
  std::vector<StepTraceTime> rows = ComputeStepTraceTime(trace_, steps);
  ASSERT_EQ(rows.size(), 1u);
  const StepTraceTime& r = rows[0];
  EXPECT_EQ(r.step_id, 7);
  EXPECT_EQ(r.window_start_ns, 2000);
  EXPECT_EQ(r.window_end_ns, 6800);
  EXPECT_EQ(r.computing_ns, 400);
  EXPECT_EQ(r.communication_ns, 450);
  EXPECT_EQ(r.comm_not_overlapped_ns, 400);
  EXPECT_EQ(r.overlapped_ns, 50);
  EXPECT_EQ(r.free_ns, 1000);
  EXPECT_EQ(r.bubble_ns, 200);
  EXPECT_EQ(r.comm_not_overlapped_excl_receive_ns, 200);
  EXPECT_EQ(r.stage_ns, 6800 - 2000 - 200);
  EXPECT_EQ(r.preparing_ns, 2000 - 1000);
}

TEST_F(OverlapAnalysisTest, NoStepsMeansOneRowForTheTrace) {
  Add(cpu_, 500, 10, "aten::add");
  Overlap("Computing", 1000, 100);
  Overlap("Free", 1100, 100);
  Overlap("Communication", 1150, 100);
  ASSERT_TRUE(b_->Finalize().ok());
  std::vector<StepTraceTime> rows = ComputeStepTraceTime(trace_, {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].step_id, -1);
  EXPECT_EQ(rows[0].computing_ns, 100);
  EXPECT_EQ(rows[0].stage_ns, 250);
  EXPECT_EQ(rows[0].preparing_ns, 500);
}

TEST_F(OverlapAnalysisTest, NothingWithoutOverlapSlices) {
  Add(cpu_, 500, 10, "aten::add");
  ASSERT_TRUE(b_->Finalize().ok());
  EXPECT_FALSE(HasOverlapAnalysis(trace_));
  EXPECT_TRUE(ComputeStepTraceTime(trace_, {}).empty());
}

}  // namespace
}  // namespace cprof
