// Buffered JSON text output into an AtomicFile, gzip-compressed on the fly when asked: the
// small writer the Chrome JSON export needs (escaped strings, exact integers, shortest
// round-trip doubles, ns as microseconds with three exact decimals).
//
//   AtomicFile file("trace.json.gz");  RETURN_IF_ERROR(file.Open());
//   JsonSink out(&file, /*gzip=*/true);
//   out.Raw("{\"ts\":");  out.Micros(1234567);  out.Raw("}");   // {"ts":1234.567}
//   RETURN_IF_ERROR(out.Finish());  RETURN_IF_ERROR(file.Commit());
//
// Errors are sticky: appending never fails; Finish() (or a full buffer's flush) reports the
// first write error. Not thread-safe.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/atomic_file.h"
#include "base/status.h"

namespace cprof {

class JsonSink {
 public:
  JsonSink(AtomicFile* file, bool gzip);
  ~JsonSink();
  JsonSink(const JsonSink&) = delete;
  JsonSink& operator=(const JsonSink&) = delete;

  void Raw(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= kFlushBytes) Flush(false);
  }
  void Char(char c) { buf_.push_back(c); }
  // A JSON string literal; invalid UTF-8 becomes U+FFFD so strict parsers accept the file.
  void String(std::string_view s);
  void Int(int64_t v);
  void Uint(uint64_t v);
  // Shortest text that reads back as the same double, always with a '.' or an exponent so it
  // stays a double; non-finite values (no JSON form) as the strings "nan", "inf", "-inf".
  void Double(double v);
  // ns as microseconds: integer part, '.', three digits ("-0.005" for -5 ns).
  void Micros(int64_t ns);

  // Elements of the one array being written: the separator before each ("\n" first, then
  // ",\n": one event per line).
  void BeginArray() {
    Char('[');
    first_element_ = true;
  }
  void NextElement() {
    Raw(first_element_ ? "\n" : ",\n");
    first_element_ = false;
  }

  Status Finish();  // flushes, ends the gzip stream, reports any error

 private:
  static constexpr size_t kFlushBytes = 1 << 20;
  void Flush(bool final);

  AtomicFile* file_;
  bool gzip_;
  z_stream zs_{};
  std::string buf_, zbuf_;
  Status status_;
  bool first_element_ = true;
};

}  // namespace cprof
