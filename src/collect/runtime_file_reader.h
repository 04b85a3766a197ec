// RuntimeFileReader: reads one `rt-<pid>.bin` file of the in-process runtime
// (runtime/record_format.h) incrementally, while the traced process is still appending to it.
//
//   RuntimeFileReader r(path);
//   r.ReadMore([&](const RuntimeRecord& rec) { ... });   // each call: what was appended since
//   int64_t ns = r.ToNs(rec.record->ts, rec.record->flags);
//
// A chunk that is not complete yet is left for the next call. Strings are collected as they
// arrive; a string id may be used before its definition has been read (String() is then
// empty until it has). Not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "collect/runtime/record_format.h"

namespace cprof {

struct RuntimeRecord {
  const cprof_record* record;  // the main block; valid during the callback only
  const uint64_t* ext;         // extension blocks as 64-bit words
  size_t ext_words;
  int32_t tid;                 // thread that wrote it
};

class RuntimeFileReader {
 public:
  explicit RuntimeFileReader(std::string path);
  ~RuntimeFileReader();
  RuntimeFileReader(const RuntimeFileReader&) = delete;
  RuntimeFileReader& operator=(const RuntimeFileReader&) = delete;

  // Parses everything complete that was appended since the last call.
  Status ReadMore(const std::function<void(const RuntimeRecord&)>& on_record);

  bool has_header() const { return has_header_; }
  pid_t pid() const { return header_.pid; }
  pid_t ppid() const { return header_.ppid; }
  const std::string& path() const { return path_; }
  // The string with this id ("" for 0 or not yet defined).
  const std::string& String(uint32_t id) const;
  // A record timestamp as CLOCK_MONOTONIC ns.
  int64_t ToNs(uint64_t ts, uint16_t flags) const;
  // Malformed bytes skipped (a chunk header that makes no sense ends the file's reading).
  int64_t malformed() const { return malformed_; }

 private:
  void Parse(const std::function<void(const RuntimeRecord&)>& on_record);

  std::string path_;
  int fd_ = -1;
  std::vector<char> buf_;  // unparsed bytes
  bool has_header_ = false;
  bool broken_ = false;
  cprof_file_header header_{};
  std::vector<std::pair<uint64_t, int64_t>> clock_;  // (tsc, ns), increasing
  std::unordered_map<uint32_t, std::string> strings_;
  std::vector<uint64_t> ext_scratch_;
  int64_t malformed_ = 0;
};

}  // namespace cprof
