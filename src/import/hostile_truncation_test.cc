// Hostile inputs, truncation: a Kineto JSON, its gzip, a Perfetto trace and the array form cut at
// every byte, and each file of a torch_npu folder cut after every line, all through the real import
// path (ImportTrace). Each cut must give a clear error (file, place, reason) or exactly the events
// it holds whole; which one is asserted per case. The other hostile inputs are in
// hostile_input_test.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/byte_source.h"
#include "export/export_trace.h"
#include "import/gzip_test_util.h"
#include "import/hostile_input_test_util.h"
#include "import/import_trace.h"
#include "import/json/json_test_util.h"

namespace cprof {
namespace {

using hostile_test::ExpectClearError;
using hostile_test::SmallTorchNpuFolder;
using hostile_test::WriteFile;
using json::testing::TempFile;
namespace fs = std::filesystem;

// A small Kineto trace in the object form, every kind of event the importer treats specially.
std::string SmallKineto() {
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "H100", "totalGlobalMem": 85000000000}],
"distributedInfo": {"rank": 0, "world_size": 2},
"traceEvents": [
{"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "python"}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 8, "ts": 100.5, "dur": 20, "args": {"External id": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 8, "ts": 105, "dur": 4, "args": {"correlation": 11}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 11}},
{"ph": "s", "id": 11, "pid": 7, "tid": 8, "ts": 105, "cat": "ac2g", "name": "ac2g"},
{"ph": "f", "id": 11, "pid": 0, "tid": 7, "ts": 110, "cat": "ac2g", "name": "ac2g", "bp": "e"},
{"ph": "C", "name": "mem", "pid": 7, "ts": 120, "args": {"used": 10}}
],
"traceName": "small"})";
}

TEST(HostileInputTest, KinetoJsonTruncatedAtEveryByteIsAClearError) {
  const std::string full = SmallKineto();
  {
    TempFile f(full);
    auto t = ImportTrace(f.path());
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_EQ(t->slices.size(), 3u);
  }
  // The object form needs its closing brace: every proper prefix is an error naming the place.
  for (size_t len = 0; len < full.size(); ++len) {
    TempFile f(std::string_view(full).substr(0, len));
    auto t = ImportTrace(f.path());
    ASSERT_FALSE(t.ok()) << "prefix " << len;
    ExpectClearError(t.status(), f.path(), fmt::format("prefix of {} bytes", len));
  }
}

TEST(HostileInputTest, GzipTruncatedAtEveryByteIsAClearError) {
  const std::string gz = GzipMember(SmallKineto());
  for (size_t len = 2; len < gz.size(); ++len) {  // from 2: the magic makes it a gzip file
    TempFile f(std::string_view(gz).substr(0, len), ".json.gz");
    auto t = ImportTrace(f.path());
    if (len < 10) {
      // Too short for a gzip header: not recognized, or a corrupt stream; either names the file.
      ASSERT_FALSE(t.ok());
      EXPECT_NE(t.status().message().find(f.path()), std::string::npos) << t.status().message();
      continue;
    }
    ASSERT_FALSE(t.ok()) << "prefix " << len;
    ExpectClearError(t.status(), f.path(), fmt::format("gzip prefix of {} bytes", len));
  }
}

TEST(HostileInputTest, PerfettoPbTruncatedAtEveryByteIsAClearErrorOrTheWholePackets) {
  const fs::path tmp = TestDir("tmp");
  const std::string json = (tmp / "small.json").string(), pb = (tmp / "small.pb").string();
  WriteFile(json, SmallKineto());
  auto t = ImportTrace(json);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(ExportTrace(*t, pb, ExportFormat::kPerfettoPb).ok());
  const std::string bytes = *ReadWholeFile(pb);
  auto whole = ImportTrace(pb);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->slices.size(), t->slices.size());
  int partial = 0;
  for (size_t len = 1; len < bytes.size(); ++len) {
    const std::string cut = (tmp / "cut.pb").string();
    WriteFile(cut, std::string_view(bytes).substr(0, len));
    auto r = ImportTrace(cut);
    if (r.ok()) {
      // A cut between packets: what came before, never more.
      EXPECT_LE(r->slices.size(), whole->slices.size()) << "prefix " << len;
      ++partial;
      continue;
    }
    EXPECT_NE(r.status().code(), StatusCode::kInternal) << r.status().message();
    EXPECT_NE(r.status().message().find(cut), std::string::npos) << r.status().message();
  }
  std::printf("[ measured ] %zu prefixes of a %zu-byte .pb, %d imported as partial traces\n",
              bytes.size() - 1, bytes.size(), partial);
}

// The array form (torch_npu's trace_view.json) may end after any complete event: a prefix gives
// exactly the events it holds whole, and a cut inside an event is an error naming that event.
TEST(HostileInputTest, ArrayTraceTruncatedAtEveryByteKeepsTheCompleteEvents) {
  std::string text = "[\n";
  std::vector<std::pair<size_t, size_t>> spans;  // [begin, end) of each event
  for (int i = 0; i < 6; ++i) {
    if (i) text += ",\n";
    const size_t begin = text.size();
    text += fmt::format(
        R"({{"ph": "X", "name": "op{}", "pid": 1, "tid": 2, "ts": "{}.250", "dur": 3, "args": {{"k": [1, {{"a": "}}"}}]}}}})",
        i, 1000 + i * 10);
    spans.emplace_back(begin, text.size());
  }
  text += "\n]";
  for (size_t len = 1; len <= text.size(); ++len) {
    TempFile f(std::string_view(text).substr(0, len));
    auto t = ImportTrace(f.path());
    size_t complete = 0;
    int inside = -1;
    for (size_t i = 0; i < spans.size(); ++i) {
      if (spans[i].second <= len) ++complete;
      if (spans[i].first < len && len < spans[i].second) inside = static_cast<int>(i);
    }
    if (inside >= 0) {
      ASSERT_FALSE(t.ok()) << "prefix " << len;
      ExpectClearError(t.status(), f.path(), fmt::format("prefix {}", len));
      EXPECT_NE(t.status().message().find(fmt::format("event #{}", inside)), std::string::npos)
          << t.status().message();
    } else {
      ASSERT_TRUE(t.ok()) << "prefix " << len << ": " << t.status().message();
      EXPECT_EQ(t->slices.size(), complete) << "prefix " << len;
      EXPECT_EQ(t->stats.Get(ImportStat::json_unterminated_array), len < text.size() ? 1 : 0)
          << "prefix " << len;
    }
  }
}

TEST(HostileInputTest, TorchNpuFolderWithEachFileCutAfterEveryLine) {
  const fs::path tmp = TestDir("tmp");
  SmallTorchNpuFolder folder(tmp);
  auto whole = ImportTrace(folder.dir().string());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const size_t whole_slices = whole->slices.size();
  ASSERT_GE(whole_slices, static_cast<size_t>(SmallTorchNpuFolder::kTraceEvents));

  int cuts = 0;
  for (const auto& [name, content] : folder.files()) {
    for (size_t pos = content.find('\n'); pos != std::string::npos; pos = content.find('\n', pos + 1)) {
      for (size_t len : {pos, pos + 1}) {  // before and after the newline: the cut falls on a line end
        if (len >= content.size()) continue;
        folder.WriteAll();
        WriteFile(folder.dir() / name, std::string_view(content).substr(0, len));
        ++cuts;
        auto t = ImportTrace(folder.dir().string());
        const std::string ctx = fmt::format("{} cut at {}", name, len);
        const std::string file = fs::path(name).filename().string();
        if (name.ends_with("trace_view.json")) {
          // The primary source: a cut after a complete event keeps the events before it; a cut
          // right after '[' keeps none; anything else is an error naming the file.
          if (t.ok()) {
            EXPECT_LE(t->slices.size(), whole_slices) << ctx;
          } else {
            ExpectClearError(t.status(), file, ctx);
          }
          continue;
        }
        // A side table: the import goes on; the trace keeps trace_view.json's slices, and a file
        // that could not be read is named in import_problems.
        ASSERT_TRUE(t.ok()) << ctx << ": " << t.status().message();
        EXPECT_GE(t->slices.size(), static_cast<size_t>(SmallTorchNpuFolder::kTraceEvents)) << ctx;
        const std::string problems = t->MetadataText("import_problems");
        if (!problems.empty()) {
          EXPECT_NE(problems.find(file), std::string::npos) << ctx << ": " << problems;
        }
      }
    }
  }
  EXPECT_GT(cuts, 20);
}

}  // namespace
}  // namespace cprof
