// What the hostile-input tests share: a file writer, the check that an error is "clear" (names
// the file and a place), and a small torch_npu folder cut from the real rank-0 fixture.
//
//   SmallTorchNpuFolder npu(TestDir("npu"));   // testing/test_dir.h
//   ExpectClearError(ImportTrace(npu.dir().string()).status(), "trace_view.json", "cut");
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

#include "base/byte_source.h"
#include "base/status.h"
#include "testing/test_dir.h"

namespace cprof::hostile_test {

namespace fs = std::filesystem;

inline void WriteFile(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(content.data(), static_cast<std::streamsize>(content.size()));
}

// An error is "clear" when it names the file and says where: a byte, a line, an event, or that
// the file is empty.
inline void ExpectClearError(const Status& st, const std::string& file, const std::string& context) {
  EXPECT_NE(st.code(), StatusCode::kOk) << context;
  EXPECT_NE(st.code(), StatusCode::kInternal) << context << ": " << st.message();
  EXPECT_NE(st.message().find(file), std::string::npos) << context << ": " << st.message();
  const std::string& m = st.message();
  const bool placed = m.find("byte ") != std::string::npos || m.find("line ") != std::string::npos ||
                      m.find("event #") != std::string::npos || m.find("empty") != std::string::npos ||
                      m.find("whitespace") != std::string::npos;
  EXPECT_TRUE(placed) << context << ": no place in: " << m;
}

// A torch_npu folder made of the first lines of the real rank-0 fixture's files.
class SmallTorchNpuFolder {
 public:
  static constexpr int kTraceEvents = 8;

  explicit SmallTorchNpuFolder(const fs::path& root) : dir_(root / "rank0_ascend_pt") {
    const fs::path src = fs::path(CPROF_FIXTURES_DIR) / "ascend/text_level1/rank0_ascend_pt";
    files_["profiler_info_0.json"] = *ReadWholeFile((src / "profiler_info_0.json").string());
    files_["ASCEND_PROFILER_OUTPUT/kernel_details.csv"] =
        FirstLines(src / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", 6);
    files_["ASCEND_PROFILER_OUTPUT/step_trace_time.csv"] =
        FirstLines(src / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv", 3);
    files_["ASCEND_PROFILER_OUTPUT/op_statistic.csv"] =
        FirstLines(src / "ASCEND_PROFILER_OUTPUT/op_statistic.csv", 4);
    // torch_npu's shapes: decimal-string ts with ns digits, a process_name, host and device rows.
    std::string tv = "[\n";
    tv += R"({"ph": "M", "name": "process_name", "pid": 3096504, "tid": 0, "args": {"name": "Python"}},)"
          "\n";
    tv += R"({"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "Ascend Hardware"}},)"
          "\n";
    for (int i = 0; i < kTraceEvents; ++i) {
      tv += fmt::format(
          R"({{"ph": "X", "name": "aten::op{}", "pid": 3096504, "tid": 3096504, "ts": "1736408883688{:03}.930", "dur": 5.5, "cat": "cpu_op", "args": {{"Sequence number": {}}}}})",
          i, 100 + i * 10, i);
      tv += i + 1 < kTraceEvents ? ",\n" : "\n";
    }
    tv += "]\n";
    files_["ASCEND_PROFILER_OUTPUT/trace_view.json"] = tv;
    WriteAll();
  }

  void WriteAll() {
    for (const auto& [name, content] : files_) WriteFile(dir_ / name, content);
  }
  const fs::path& dir() const { return dir_; }
  const std::map<std::string, std::string>& files() const { return files_; }

 private:
  static std::string FirstLines(const fs::path& p, int n) {
    std::string text = *ReadWholeFile(p.string());
    size_t pos = 0;
    for (int i = 0; i < n && pos != std::string::npos; ++i) {
      pos = text.find('\n', pos);
      if (pos != std::string::npos) ++pos;
    }
    return pos == std::string::npos ? text : text.substr(0, pos);
  }

  fs::path dir_;
  std::map<std::string, std::string> files_;
};

}  // namespace cprof::hostile_test
