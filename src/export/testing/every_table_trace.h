// Test helper: a small Trace, made through the TraceBuilder, with something in every table
// and column and the awkward cases exporters must survive. Header-only, for tests.
#pragma once

#include <cmath>
#include <limits>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof::testing {

// A trace that puts something in every table and column, with the awkward cases: negative
// and huge timestamps, crossing slices, a slice that never ended, zero-length slices, args of
// every type, counters on a non-counter track and slices on a counter track, flows that point
// back in time.
inline Trace MakeEveryTableTrace() {
  Trace trace;
  TraceBuilder b(&trace);
  auto S = [&](std::string_view s) { return b.Intern(s); };

  TrackId main = b.ThreadTrack(100, 100);
  b.tracks().name_id[Index(main)] = S("python main");
  b.tracks().name_id[Index(b.ProcessTrack(100))] = S("trainer");
  b.tracks().sort_index[Index(main)] = 2;
  TrackId worker = b.ThreadTrack(100, 101);
  b.tracks().sort_index[Index(worker)] = 1;
  TrackId dup_thread = b.AddTrack({.parent_id = b.ProcessTrack(100), .kind = TrackKind::kThread, .pid = 100, .tid = 101});
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  b.tracks().rank[Index(gpu)] = 3;
  TrackId npu = b.StreamTrack(TrackKind::kNpuStream, 1, 2);
  TrackId comm = b.ChildTrack(b.DeviceTrack(1), TrackKind::kCommunication, S("HCCL"));
  TrackId async = b.ChildTrack(b.ProcessTrack(100), TrackKind::kAsync, S("async ops"));
  TrackId analysis = b.ChildTrack(kNoTrack, TrackKind::kAnalysis, S("Overlap Analysis"));
  TrackId counter = b.ChildTrack(b.ProcessTrack(100), TrackKind::kCounter, S("HBM"));
  b.tracks().unit_id[Index(counter)] = S("KB");
  TrackId core = b.AddTrack({.kind = TrackKind::kCpuCore, .name_id = S("cpu 3"), .pid = -1});
  b.AddTrack({.kind = TrackKind::kProcess, .pid = int64_t{1} << 40});  // pid too big for Perfetto

  auto args = [&](auto&&... kv) {
    (b.args().Add(S(kv.first), kv.second), ...);
    return b.args().Finish();
  };
  const ArgSetId every_type = args(std::pair{"int", Value::Int(-42)}, std::pair{"uint", Value::Uint(~uint64_t{0})},
                                   std::pair{"double", Value::Double(0.1)}, std::pair{"str", Value::String(S("x\ny"))},
                                   std::pair{"empty", Value::String(kEmptyString)},
                                   std::pair{"bool", Value::Bool(true)}, std::pair{"null", Value()},
                                   std::pair{"", Value::Int(1)}, std::pair{"nan", Value::Double(NAN)},
                                   std::pair{"inf", Value::Double(-INFINITY)});
  const ArgSetId small = args(std::pair{"Input Dims", Value::String(S("[[2, 3]]"))});

  SliceId step = b.AddSlice({.ts_ns = -5000, .dur_ns = 100000, .track_id = main, .name_id = S("ProfilerStep#1"),
                             .category_id = S("user_annotation"), .arg_set_id = every_type});
  SliceId launch = b.AddSlice({.ts_ns = -5000, .dur_ns = 300, .track_id = main, .name_id = S("cudaLaunchKernel"),
                               .category_id = S("cuda_runtime"), .correlation_id = 77});
  b.AddSlice({.ts_ns = -4700, .dur_ns = 0, .track_id = main, .name_id = S("instant")});
  b.AddSlice({.ts_ns = -4700, .dur_ns = 50, .track_id = main, .name_id = S("after instant"), .arg_set_id = small});
  SliceId fwd = b.AddSlice({.ts_ns = 1000, .dur_ns = 2000, .track_id = main, .name_id = S("aten::mm"),
                            .category_id = S("cpu_op"), .correlation_id = -5});
  b.AddSlice({.ts_ns = 3000, .dur_ns = 500, .track_id = main, .name_id = S("aten::mm")});  // touches fwd's end
  SliceId bwd = b.AddSlice({.ts_ns = 20000, .dur_ns = 1000, .track_id = worker, .name_id = S("MmBackward")});
  b.AddSlice({.ts_ns = 20000, .dur_ns = 1000, .track_id = dup_thread, .name_id = S("same thread again")});
  SliceId kernel = b.AddSlice({.ts_ns = 2000, .dur_ns = 1500, .track_id = gpu, .name_id = S("gemm_kernel"),
                               .category_id = S("kernel"), .correlation_id = 77});
  SliceId early = b.AddSlice({.ts_ns = -9000, .dur_ns = 10, .track_id = gpu, .name_id = S("early kernel")});
  b.AddSlice({.ts_ns = 10, .dur_ns = 20, .track_id = npu, .name_id = S("MatMul")});
  b.AddSlice({.ts_ns = 5, .dur_ns = 100, .track_id = comm, .name_id = S("hcom_allReduce_")});
  // Crossing slices on one track: two lanes.
  b.AddSlice({.ts_ns = 0, .dur_ns = 100, .track_id = async, .name_id = S("a")});
  b.AddSlice({.ts_ns = 50, .dur_ns = 100, .track_id = async, .name_id = S("b")});
  b.AddSlice({.ts_ns = 60, .dur_ns = 10, .track_id = async, .name_id = S("c")});
  b.AddSlice({.ts_ns = 120, .dur_ns = 200, .track_id = async, .name_id = S("d")});
  b.AddSlice({.ts_ns = 100, .dur_ns = -1, .track_id = analysis, .name_id = S("never ended")});
  b.AddSlice({.ts_ns = 200, .dur_ns = 5, .track_id = analysis, .name_id = S("inside the open one")});
  b.AddSlice({.ts_ns = 7, .dur_ns = 3, .track_id = counter, .name_id = S("slice on a counter track")});
  b.AddSlice({.ts_ns = std::numeric_limits<int64_t>::max() / 2, .dur_ns = 1, .track_id = core, .name_id = S("far")});

  b.AddFlow(launch, kernel, FlowKind::kLaunch, S("ac2g"));
  b.AddFlow(fwd, bwd, FlowKind::kFwdBwd, S("fwdbwd"));
  b.AddFlow(launch, early, FlowKind::kHostToDevice);  // points back in time
  b.AddFlow(step, kernel, FlowKind::kQueue);          // fan-in on kernel
  b.AddFlow(step, step, FlowKind::kOther);            // a self-flow

  for (int i = 0; i < 5; ++i) b.AddCounter(counter, 1000 * i - 2000, i * 1.5);
  b.AddCounter(counter, 500, NAN);
  b.AddCounter(main, 10, 3);  // on a thread track

  b.AddMemoryEvent({.ts_ns = 100, .track_id = main, .device = 0, .address = 0xdeadbeef00, .bytes = 4096,
                    .total_allocated = 4096, .total_reserved = 1 << 20});
  b.AddMemoryEvent({.ts_ns = 900, .track_id = main, .device = -1, .address = 0xdeadbeef00, .bytes = -4096});

  FrameId f0 = b.AddFrame({.function_id = S("main"), .module_id = S("python3"), .address = 0x400000,
                           .file_id = S("train.py"), .line = 12});
  FrameId f1 = b.AddFrame({.function_id = S("forward"), .module_id = S("model.py")});
  StackId s0 = b.AddStack(kNoStack, f0);
  StackId s1 = b.AddStack(s0, f1);
  b.AddSample({.ts_ns = 50, .track_id = main, .stack_id = s1, .weight = 1});
  b.AddSample({.ts_ns = 40, .track_id = worker, .stack_id = s0, .weight = 10007});

  b.SetMetadataString(meta::kSourceFormat, "kineto");
  b.SetMetadata(meta::kRank, Value::Int(3));
  b.SetMetadata(meta::kWorldSize, Value::Uint(8));
  b.SetMetadata("ratio", Value::Double(0.25));
  b.SetMetadata("flag", Value::Bool(false));
  b.SetMetadata("nothing", Value());
  b.SetMetadataString(meta::kDeviceProperties, R"([{"id": 0, "name": "H100"}])");
  b.stats().Add(ImportStat::json_unknown_phase, 3);
  b.stats().Add(ImportStat::unmatched_end, 1);
  EXPECT_TRUE(b.Finalize().ok());
  return trace;
}

}  // namespace cprof::testing
