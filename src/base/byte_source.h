// Streaming input: a file read in chunks, transparently gunzipped, so importers never hold a
// whole trace in memory.
//
//   ASSIGN_OR_RETURN(auto src, OpenByteSource("trace.json.gz"));
//   std::vector<char> buf(1 << 20);
//   for (;;) { ASSIGN_OR_RETURN(size_t n, src->Read(buf.data(), buf.size())); if (n == 0) break; }
//
// Not thread-safe; one reader per source.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes; returns 0 only at the end of the data. Errors name the file.
  virtual StatusOr<size_t> Read(char* dst, size_t n) = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for .gz).
  virtual uint64_t file_offset() const = 0;
  // The size of the file on disk.
  virtual uint64_t file_size() const = 0;
  virtual bool compressed() const = 0;
  const std::string& path() const { return path_; }

 protected:
  explicit ByteSource(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Limits on what a gzip stream may expand to, so a decompression bomb (deflate reaches 1032:1)
// fails fast with kResourceLimit instead of running for minutes or filling memory.
struct DecompressionLimits {
  // Decompressed : compressed bytes, checked once more than kRatioCheckFloor bytes came out
  // (a small file that compresses well is harmless). Real traces measure 10-30:1; even one event
  // repeated verbatim stays under 350:1. 0 = no ratio limit.
  uint64_t max_ratio = 500;
  // Decompressed bytes in all; 0 = no limit.
  uint64_t max_bytes = 64ull << 30;
  static constexpr uint64_t kRatioCheckFloor = 64ull << 20;
};

// Opens `path`; a gzip stream (by magic bytes, not by name) is decompressed on the fly, within
// `limits`.
StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path, const DecompressionLimits& limits = {});

// Reads a whole (small) file, decompressing gzip. For configs and CSVs, not for large traces.
// More than `max_bytes` (0 = no limit beyond `limits`) is kResourceLimit naming the file.
StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes = 0,
                                    const DecompressionLimits& limits = {});

// True if the first bytes of `path` are the gzip magic.
bool IsGzipFile(const std::string& path);

}  // namespace cprof
