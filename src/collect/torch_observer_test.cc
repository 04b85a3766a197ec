// PyTorch operators from programs that know nothing of cann-profiler: a Python script with
// Debian's python3-torch and a C++ libtorch program. Operators carry their input shapes,
// backward ops link to their forward ops, allocator events arrive, and a user's own
// torch.profiler keeps working in the same process.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "collect/collect_test_util.h"
#include "testing/test_dir.h"

namespace cprof {
namespace {

using testing::Collected;
using testing::RunCollect;
using testing::SlicesNamed;
using testing::TestOptions;

#if CPROF_HAVE_TORCH

std::string Arg(const Trace& t, uint32_t row, std::string_view key) {
  std::optional<Value> v = t.SliceArg(row, key);
  if (!v || v->type != Value::Type::kString) return {};
  return std::string(t.Str(v->s));
}

// Some slice `name` has an "Input Dims" arg containing `dims`.
bool HasOpWithDims(const Trace& t, std::string_view name, std::string_view dims) {
  for (uint32_t r : SlicesNamed(t, name)) {
    if (Arg(t, r, "Input Dims").find(dims) != std::string::npos) return true;
  }
  return false;
}

TEST(TorchObserverTest, PythonScriptWithNoCodeChanges) {
  CollectOptions o = TestOptions({"/usr/bin/python3", testing::TestdataSrc("torch_script.py"), "4"});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  ASSERT_EQ(c.exit_code, 0);
  const Trace& t = c.trace;
  // nn.Linear(64, 128) on a [32, 64] batch: addmm(bias, input, weight^T).
  EXPECT_TRUE(HasOpWithDims(t, "aten::addmm", "[32, 64], [64, 128]")) << "no aten::addmm with shapes";
  EXPECT_GE(SlicesNamed(t, "aten::relu").size(), 4u);
  auto addmm = SlicesNamed(t, "aten::addmm");
  ASSERT_FALSE(addmm.empty());
  EXPECT_EQ(t.Str(t.slices.category_id[addmm[0]]), "cpu_op");
  EXPECT_NE(Arg(t, addmm[0], "Input type").find("float"), std::string::npos);
  // Backward ops, linked to their forward ops by sequence number.
  EXPECT_FALSE(SlicesNamed(t, "autograd::engine::evaluate_function: AddmmBackward0").empty());
  size_t fwd_bwd = 0;
  for (uint32_t i = 0; i < t.flows.size(); ++i) fwd_bwd += t.flows.kind[i] == FlowKind::kFwdBwd;
  EXPECT_GT(fwd_bwd, 0u);
  // The Python shim: DataLoader fetches; allocator events; metadata.
  EXPECT_GE(SlicesNamed(t, "DataLoader.__next__").size(), 4u);
  EXPECT_GT(t.memory_events.size(), 0u);
  EXPECT_FALSE(t.MetadataText("torch_version").empty());
  EXPECT_FALSE(t.MetadataText("torch_intra_op_threads").empty());
  // Sampled Python stacks became python_function spans, the script's module among them.
  bool module_span = false;
  size_t python_spans = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.category_id[i]) != "python_function") continue;
    ++python_spans;
    module_span |= t.Str(t.slices.name_id[i]).find("torch_script.py") != std::string_view::npos;
  }
  EXPECT_GT(python_spans, 0u);
  EXPECT_TRUE(module_span);
}

TEST(TorchObserverTest, CppLibtorchProgramWithNoCodeChanges) {
  CollectOptions o = TestOptions({testing::TestdataBin("cprof_torch_program"), "3"});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  ASSERT_EQ(c.exit_code, 0);
  EXPECT_TRUE(HasOpWithDims(c.trace, "aten::addmm", "[32, 64], [64, 128]"));
  EXPECT_GE(SlicesNamed(c.trace, "aten::relu").size(), 3u);
  EXPECT_GT(c.trace.memory_events.size(), 0u);
}

TEST(TorchObserverTest, AUsersTorchProfilerStillWorks) {
  std::string out = TestFile("user_profiler_trace.json");
  CollectOptions o = TestOptions({"/usr/bin/python3", testing::TestdataSrc("torch_with_profiler.py"), out});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  ASSERT_EQ(c.exit_code, 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("aten::mm"), std::string::npos) << "the user's own profiler trace lacks ops";
  EXPECT_NE(text.str().find("ProfilerStep#1"), std::string::npos);
  // And we saw the same ops, the user's record_function and profiler steps included.
  EXPECT_GE(SlicesNamed(c.trace, "user_block").size(), 3u);
  EXPECT_GE(SlicesNamed(c.trace, "aten::mm").size(), 5u);
  EXPECT_FALSE(SlicesNamed(c.trace, "ProfilerStep#1").empty());
}

TEST(TorchObserverTest, ProcessesWithoutTorchNeverLoadIt) {
  // A shell has the preload stub but neither libtorch nor the observer.
  std::string out = TestFile("shell_maps.txt");
  CollectOptions o = TestOptions({"sh", "-c", "cat /proc/$$/maps > " + out});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  EXPECT_EQ(c.exit_code, 0);
  std::ifstream in(out);
  std::stringstream maps;
  maps << in.rdbuf();
  EXPECT_NE(maps.str().find("libcprof_preload.so"), std::string::npos);
  EXPECT_EQ(maps.str().find("libcprof_torch.so"), std::string::npos);
  EXPECT_EQ(maps.str().find("libtorch"), std::string::npos);
}

#endif  // CPROF_HAVE_TORCH

}  // namespace
}  // namespace cprof
