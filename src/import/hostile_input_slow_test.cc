// The large hostile inputs, generated at test time and never stored: 10^7 tiny events, a
// decompression bomb (~10 MB of gzip expanding to 10 GiB, never materialized), one event with a
// 100 MB name. Each import runs in a forked child so its peak RSS (wait4) and time are its own;
// the numbers are printed for the record and bounded by the assertions.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "import/gzip_test_util.h"
#include "import/import_trace.h"
#include "import/json/json_test_util.h"

namespace cprof {
namespace {

using json::testing::TempFile;


// A .gz file: `head`, then `body` repeated `repeats` times, then `tail`, as concatenated gzip
// members (which gzip readers must accept); the body is compressed once, so a file that expands
// to gigabytes is written in a fraction of a second and never exists uncompressed.
class RepeatedGzipFile {
 public:
  RepeatedGzipFile(std::string_view head, std::string_view body, int repeats, std::string_view tail) {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir ? dir : "/tmp") + "/cprof_hostile_XXXXXX.json.gz";
    int fd = mkstemps(path_.data(), 8);
    const std::string h = GzipMember(head), b = GzipMember(body), t = GzipMember(tail);
    Write(fd, h);
    for (int i = 0; i < repeats; ++i) Write(fd, b);
    if (!tail.empty()) Write(fd, t);
    close(fd);
    expanded_ = head.size() + body.size() * static_cast<uint64_t>(repeats) + tail.size();
  }
  ~RepeatedGzipFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }
  uint64_t expanded() const { return expanded_; }
  uint64_t file_size() const {
    struct stat st;
    return stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }

 private:
  static void Write(int fd, const std::string& s) {
    for (size_t off = 0; off < s.size();) {
      ssize_t n = ::write(fd, s.data() + off, s.size() - off);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  std::string path_;
  uint64_t expanded_ = 0;
};

struct ChildRun {
  bool ok = false;
  StatusCode code = StatusCode::kInternal;
  std::string message;  // error message, or what the child reports on success
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // user + system: the measure that a loaded machine does not inflate
  uint64_t max_rss_mib = 0;
};

// Runs `fn` in a forked child; its Status (and on success the text it returns) comes back
// through a pipe, its peak RSS through wait4.
ChildRun RunInChild(const std::function<StatusOr<std::string>()>& fn) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    StatusOr<std::string> r = fn();
    std::string msg = r.ok() ? *r : r.status().message();
    const char code = static_cast<char>(r.ok() ? StatusCode::kOk : r.status().code());
    (void)!write(fds[1], &code, 1);
    (void)!write(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  struct rusage ru{};
  wait4(pid, &wstatus, 0, &ru);
  ChildRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.max_rss_mib = static_cast<uint64_t>(ru.ru_maxrss) >> 10;
  run.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                    static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << "the child crashed: status " << wstatus;
  if (got.empty()) return run;
  run.code = static_cast<StatusCode>(got[0]);
  run.ok = run.code == StatusCode::kOk;
  run.message = got.substr(1);
  return run;
}

void Report(const char* what, const ChildRun& r) {
  std::printf("[ measured ] %s: %.1f s wall, %.1f s cpu, peak RSS %llu MiB, %s\n", what, r.seconds, r.cpu_seconds,
              static_cast<unsigned long long>(r.max_rss_mib), r.message.c_str());
}

// 10^5 distinct events compressed once, repeated `blocks` times: ~50 bytes of JSON per event.
std::unique_ptr<RepeatedGzipFile> TinyEvents(int blocks) {
  std::string block;
  for (int i = 0; i < 100'000; ++i) {
    block += fmt::format(R"({{"ph":"X","name":"op{}","pid":1,"tid":{},"ts":{},"dur":1}},)", i % 64, i % 4, i * 3);
  }
  return std::make_unique<RepeatedGzipFile>("[", block, blocks,
                                            R"({"ph":"X","name":"last","pid":1,"tid":1,"ts":0,"dur":1}])");
}

TEST(HostileInputSlowTest, TenMillionTinyEventsCompleteInBoundedMemory) {
  auto file = TinyEvents(100);  // 10^7 + 1 events, ~0.5 GB of JSON
  const RepeatedGzipFile& f = *file;
  auto run = RunInChild([&]() -> StatusOr<std::string> {
    ASSIGN_OR_RETURN(Trace t, ImportTrace(f.path()));
    return fmt::format("{} slices", t.slices.size());
  });
  Report("10^7 events", run);
  ASSERT_TRUE(run.ok) << run.message;
  EXPECT_EQ(run.message, "10000001 slices");
  // 10^7 slices hold 480 MB of columns; sorting permutes them through one scratch column.
  EXPECT_LT(run.max_rss_mib, 2048u);
}

TEST(HostileInputSlowTest, TenMillionTinyEventsUnderAMemoryLimitFailEarly) {
  // The same file fails cleanly under a memory limit, early, and the process stays near the limit.
  auto file = TinyEvents(100);
  const RepeatedGzipFile& f = *file;
  auto limited = RunInChild([&]() -> StatusOr<std::string> {
    ASSIGN_OR_RETURN(Trace t, ImportTrace(f.path(), {.max_memory_bytes = 128u << 20}));
    return fmt::format("{} slices", t.slices.size());
  });
  Report("10^7 events, --max-memory 128M", limited);
  ASSERT_FALSE(limited.ok);
  EXPECT_EQ(limited.code, StatusCode::kResourceLimit) << limited.message;
  EXPECT_NE(limited.message.find(f.path()), std::string::npos) << limited.message;
  EXPECT_NE(limited.message.find("128 MiB"), std::string::npos) << limited.message;
  EXPECT_LT(limited.max_rss_mib, 512u);
}

TEST(HostileInputSlowTest, DecompressionBombFailsFastInBoundedMemory) {
  // 64 MiB of spaces compresses about 1030:1; 160 members are ~10 MB expanding to 10 GiB.
  const std::string spaces(64u << 20, ' ');
  RepeatedGzipFile bomb(R"({"traceEvents": [)", spaces, 160, "]}");
  ASSERT_GT(bomb.expanded(), 10ull << 30);
  ASSERT_LT(bomb.file_size(), 12u << 20);
  std::printf("[ measured ] bomb: %llu bytes of gzip expanding to %llu\n",
              static_cast<unsigned long long>(bomb.file_size()), static_cast<unsigned long long>(bomb.expanded()));

  // Default limits: the ratio check stops it after the first 64 MiB.
  auto run = RunInChild([&]() -> StatusOr<std::string> {
    ASSIGN_OR_RETURN(Trace t, ImportTrace(bomb.path()));
    return fmt::format("{} slices", t.slices.size());
  });
  Report("bomb, default limits", run);
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.code, StatusCode::kResourceLimit) << run.message;
  EXPECT_NE(run.message.find(bomb.path()), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("decompression bomb"), std::string::npos) << run.message;
  EXPECT_LT(run.seconds, 10);
  EXPECT_LT(run.max_rss_mib, 512u);

  // Without the ratio check, the absolute cap on decompressed bytes stops it.
  auto capped = RunInChild([&]() -> StatusOr<std::string> {
    ImportOptions o;
    o.decompression = {.max_ratio = 0, .max_bytes = 1ull << 30};
    ASSIGN_OR_RETURN(Trace t, ImportTrace(bomb.path(), o));
    return fmt::format("{} slices", t.slices.size());
  });
  Report("bomb, no ratio limit, 1 GiB cap", capped);
  ASSERT_FALSE(capped.ok);
  EXPECT_EQ(capped.code, StatusCode::kResourceLimit) << capped.message;
  EXPECT_NE(capped.message.find("limit of 1 GiB of decompressed data"), std::string::npos) << capped.message;
  EXPECT_LT(capped.max_rss_mib, 512u);
}

TEST(HostileInputSlowTest, BombInsideOneStringStopsAtTheMemoryLimit) {
  // A name that never ends: the splitter would double its buffer to hold the event forever.
  const std::string letters(64u << 20, 'a');
  RepeatedGzipFile bomb(R"([{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "name": ")", letters, 160, "");
  auto run = RunInChild([&]() -> StatusOr<std::string> {
    ImportOptions o;
    o.max_memory_bytes = 256u << 20;
    o.decompression = {.max_ratio = 0, .max_bytes = 0};
    ASSIGN_OR_RETURN(Trace t, ImportTrace(bomb.path(), o));
    return fmt::format("{} slices", t.slices.size());
  });
  Report("one endless string, --max-memory 256M, no gzip limits", run);
  ASSERT_FALSE(run.ok);
  EXPECT_EQ(run.code, StatusCode::kResourceLimit) << run.message;
  EXPECT_NE(run.message.find("event #0"), std::string::npos) << run.message;
  EXPECT_NE(run.message.find("256 MiB"), std::string::npos) << run.message;
  EXPECT_LT(run.max_rss_mib, 400u);  // measured 264 MiB
}

TEST(HostileInputSlowTest, OneHundredMegabyteNameImports) {
  const size_t kLen = 100u << 20;
  std::string doc = R"([{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "name": ")";
  doc.append(kLen, 'n');
  doc += R"("}, {"ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": 1, "name": "after"}])";
  TempFile f(doc);
  doc.clear();
  doc.shrink_to_fit();
  auto run = RunInChild([&]() -> StatusOr<std::string> {
    ASSIGN_OR_RETURN(Trace t, ImportTrace(f.path()));
    return fmt::format("{} slices, names {} and {}", t.slices.size(), t.Str(t.slices.name_id[0]).size(),
                       t.Str(t.slices.name_id[1]));
  });
  Report("100 MB name", run);
  ASSERT_TRUE(run.ok) << run.message;
  EXPECT_EQ(run.message, fmt::format("2 slices, names {} and after", kLen));
  EXPECT_LT(run.max_rss_mib, 1024u);
}

}  // namespace
}  // namespace cprof
