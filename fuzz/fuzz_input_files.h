// Fuzz-input-to-file plumbing shared by the libFuzzer targets: every importer reads paths, so a
// target writes the fuzzer's bytes into a private scratch folder (under $TMPDIR, made once per
// process, removed at exit) and imports from there.
//
//   static cprof::fuzz::ScratchDir dir("json");
//   std::string path = dir.Write("trace.json", data, size);   // overwritten on every input
//   (void)cprof::NewJsonTraceReader()->Read(path, cprof::fuzz::kFuzzImportOptions, &builder);
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "import/trace_reader.h"

namespace cprof::fuzz {

// One parse thread (the fuzzer runs one input at a time; threads only add noise and time) and a
// memory limit well under libFuzzer's -rss_limit_mb, so a limit the importer enforces is seen as
// a clean error rather than an out-of-memory crash.
inline const ImportOptions kFuzzImportOptions{.threads = 1, .max_memory_bytes = uint64_t{1} << 30};

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/cprof_fuzz_" + tag + "_XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) std::abort();  // no scratch space: nothing to fuzz
    root_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& root() const { return root_; }

  // Writes `size` bytes to `rel` (folders made as needed) and returns the full path.
  std::string Write(const std::string& rel, const uint8_t* data, size_t size) const {
    std::filesystem::path p = std::filesystem::path(root_) / rel;
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) std::abort();
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    close(fd);
    return p.string();
  }

 private:
  std::string root_;
};

}  // namespace cprof::fuzz
