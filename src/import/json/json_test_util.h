// Test helpers for the JSON importer: temp files, imports of inline JSON, lookups in the result.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/status.h"
#include "import/json/json_trace_reader.h"
#include "model/trace_builder.h"

namespace cprof::json::testing {

// A file under $TMPDIR removed when the object goes away.
class TempFile {
 public:
  explicit TempFile(std::string_view content, std::string_view suffix = ".json", bool gzip = false) {
    const char* dir = std::getenv("TMPDIR");
    std::string templ = std::string(dir ? dir : "/tmp") + "/cprof_json_XXXXXX" + std::string(suffix);
    int fd = mkstemps(templ.data(), static_cast<int>(suffix.size()));
    path_ = templ;
    if (gzip) {
      gzFile gz = gzdopen(fd, "wb");
      gzwrite(gz, content.data(), static_cast<unsigned>(content.size()));
      gzclose(gz);
    } else {
      if (!content.empty()) (void)!write(fd, content.data(), content.size());
      close(fd);
    }
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline StatusOr<Trace> ImportFile(const std::string& path, int threads = 1) {
  Trace trace;
  TraceBuilder builder(&trace);
  RETURN_IF_ERROR(NewJsonTraceReader()->Read(path, {.threads = threads}, &builder));
  RETURN_IF_ERROR(builder.Finalize());
  return trace;
}

inline StatusOr<Trace> ImportText(std::string_view json, int threads = 1) {
  TempFile f(json);
  return ImportFile(f.path(), threads);
}

// The first slice named `name`, or -1.
inline int64_t FindSlice(const Trace& t, std::string_view name) {
  for (size_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.name_id[i]) == name) return static_cast<int64_t>(i);
  }
  return -1;
}

inline size_t CountTracks(const Trace& t, TrackKind kind) {
  size_t n = 0;
  for (size_t i = 0; i < t.tracks.size(); ++i) n += t.tracks.kind[i] == kind;
  return n;
}

inline TrackKind KindOfSlice(const Trace& t, int64_t row) {
  return t.tracks.kind[Index(t.slices.track_id[static_cast<size_t>(row)])];
}

}  // namespace cprof::json::testing
