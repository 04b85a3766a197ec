// Writes an output file atomically: bytes go to a temporary file beside the target, which is
// renamed over it on Commit(). A crash or an error before Commit() leaves no partial output.
// A symbolic link is written through (its target is replaced, not the link), a replaced file keeps
// its permissions, and a target that is neither a file nor a folder (a FIFO, /dev/null,
// /dev/stdout) is written directly, as a shell redirection would.
//
//   AtomicFile out("report.html");
//   RETURN_IF_ERROR(out.Open());
//   RETURN_IF_ERROR(out.Write(html));
//   RETURN_IF_ERROR(out.Commit());
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)) {}
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status Open();
  Status Write(std::string_view bytes);
  Status Commit();  // flush, fsync, rename over the target
  const std::string& path() const { return path_; }
  FILE* stream() { return file_; }

 private:
  std::string path_;
  std::string target_;    // path_ with symbolic links followed
  std::string tmp_path_;  // empty when writing to target_ directly
  FILE* file_ = nullptr;
  bool committed_ = false;
};

// The file an output to `path` lands in: `path`, or where the symbolic link(s) there point.
std::string ResolveOutputPath(const std::string& path);

// Convenience: atomically replaces `path` with `bytes`.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Fails now if an AtomicFile could not later write `path` (its folder is missing or not writable,
// or `path` is a folder), so a long collection can check its output before it starts. Creates
// and removes one temporary file beside `path`; the error names the path and the reason.
Status CheckCanCreate(const std::string& path);

}  // namespace cprof
