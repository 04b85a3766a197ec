// LoadedRanks <-> JSON, the message of `cluster --mpi`: every field round-trips, a broken message is an error.
#include "analysis/cluster/loaded_ranks_json.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

// Every field set to a value other than its default, so a field missing from the JSON form
// comes back different.
LoadedRanks Sample() {
  RankSummary s;
  s.path = "/data/rank3_ascend_pt";
  s.rank = 3;
  s.source_format = "torch_npu";
  s.step_source = "step_trace_time.csv";
  s.steps.push_back({.step = "50", .computing_ns = 1, .comm_not_overlapped_ns = 2, .overlapped_ns = 3,
                     .communication_ns = 4, .free_ns = 5, .stage_ns = 6, .bubble_ns = 7, .preparing_ns = 8});
  s.ops.push_back({.step = "50", .kind = "allReduce", .group = "g0", .name = "hcom_allReduce__1", .start_ns = 9,
                   .elapse_ns = 10, .transit_ns = 11, .wait_ns = 12, .sync_ns = 13, .idle_ns = 14, .has_wait = true});
  s.links.push_back({.step = "50", .op = "allReduce", .group = "g0", .transport = "HCCS", .op_name = "hcom_allReduce__1",
                     .src_rank = 3, .dst_rank = 4, .size_mb = 1.5, .time_ms = 0.25, .bandwidth_gbps = 6.0});
  s.notes = {"no communication_matrix.json"};
  s.import_errors = 2;
  LoadedRanks l;
  l.ranks.push_back(s);
  l.unreadable.push_back({"/data/rank9_ascend_pt", "kernel_details.csv: line 3: bad number"});
  return l;
}

TEST(LoadedRanksJsonTest, EveryFieldRoundTrips) {
  LoadedRanks in = Sample();
  StatusOr<LoadedRanks> out = LoadedRanksFromJson(LoadedRanksToJson(in));
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->ranks.size(), 1u);
  const RankSummary& a = in.ranks[0];
  const RankSummary& b = out->ranks[0];
  EXPECT_EQ(b.path, a.path);
  EXPECT_EQ(b.rank, a.rank);
  EXPECT_EQ(b.source_format, a.source_format);
  EXPECT_EQ(b.step_source, a.step_source);
  ASSERT_EQ(b.steps.size(), 1u);
  EXPECT_EQ(b.steps[0].step, "50");
  EXPECT_EQ(b.steps[0].computing_ns, 1);
  EXPECT_EQ(b.steps[0].comm_not_overlapped_ns, 2);
  EXPECT_EQ(b.steps[0].overlapped_ns, 3);
  EXPECT_EQ(b.steps[0].communication_ns, 4);
  EXPECT_EQ(b.steps[0].free_ns, 5);
  EXPECT_EQ(b.steps[0].stage_ns, 6);
  EXPECT_EQ(b.steps[0].bubble_ns, 7);
  EXPECT_EQ(b.steps[0].preparing_ns, 8);
  ASSERT_EQ(b.ops.size(), 1u);
  EXPECT_EQ(b.ops[0].kind, "allReduce");
  EXPECT_EQ(b.ops[0].group, "g0");
  EXPECT_EQ(b.ops[0].name, "hcom_allReduce__1");
  EXPECT_EQ(b.ops[0].start_ns, 9);
  EXPECT_EQ(b.ops[0].elapse_ns, 10);
  EXPECT_EQ(b.ops[0].transit_ns, 11);
  EXPECT_EQ(b.ops[0].wait_ns, 12);
  EXPECT_EQ(b.ops[0].sync_ns, 13);
  EXPECT_EQ(b.ops[0].idle_ns, 14);
  EXPECT_TRUE(b.ops[0].has_wait);
  ASSERT_EQ(b.links.size(), 1u);
  EXPECT_EQ(b.links[0].transport, "HCCS");
  EXPECT_EQ(b.links[0].op_name, "hcom_allReduce__1");
  EXPECT_EQ(b.links[0].src_rank, 3);
  EXPECT_EQ(b.links[0].dst_rank, 4);
  EXPECT_DOUBLE_EQ(b.links[0].size_mb, 1.5);
  EXPECT_DOUBLE_EQ(b.links[0].time_ms, 0.25);
  EXPECT_DOUBLE_EQ(b.links[0].bandwidth_gbps, 6.0);
  EXPECT_EQ(b.notes, a.notes);
  EXPECT_EQ(b.import_errors, 2);
  ASSERT_EQ(out->unreadable.size(), 1u);
  EXPECT_EQ(out->unreadable[0].path, "/data/rank9_ascend_pt");
  EXPECT_EQ(out->unreadable[0].reason, "kernel_details.csv: line 3: bad number");
}

TEST(LoadedRanksJsonTest, ATruncatedOrForeignMessageIsAnError) {
  std::string wire = LoadedRanksToJson(Sample());
  EXPECT_FALSE(LoadedRanksFromJson(wire.substr(0, wire.size() / 2)).ok());
  EXPECT_FALSE(LoadedRanksFromJson(R"({"ranks": 3, "unreadable": []})").ok());
  EXPECT_FALSE(LoadedRanksFromJson(R"([1, 2])").ok());
  StatusOr<LoadedRanks> empty = LoadedRanksFromJson(LoadedRanksToJson({}));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->ranks.empty());
}

}  // namespace
}  // namespace cprof
