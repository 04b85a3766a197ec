// Splits a Perfetto trace file into its packets without ever holding the whole file: a Trace
// is a run of `packet` fields (tag 0x0A, varint length, bytes), read here one at a time from a
// ByteSource (so .pb.gz works too).
//
//   ASSIGN_OR_RETURN(auto src, OpenByteSource(path));
//   PacketReader reader(std::move(src));
//   std::string_view packet;
//   for (;;) { ASSIGN_OR_RETURN(bool more, reader.Next(&packet)); if (!more) break; ... }
//
// Errors (kInvalidInput) name the file, the byte offset and the reason: a tag other than
// `packet`, a malformed or implausible length, a file that ends inside a packet.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "base/byte_source.h"
#include "base/status.h"

namespace cprof {

class PacketReader {
 public:
  explicit PacketReader(std::unique_ptr<ByteSource> source);

  // The next packet's bytes, valid until the next call; false at the clean end of the file.
  StatusOr<bool> Next(std::string_view* packet);
  // Byte offset (in the uncompressed stream) of the current packet's tag.
  uint64_t packet_offset() const { return packet_offset_; }
  const std::string& path() const { return source_->path(); }

 private:
  // Makes at least `n` bytes available from pos_ unless the file ends first.
  Status Fill(size_t n);
  size_t available() const { return end_ - pos_; }

  std::unique_ptr<ByteSource> source_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  uint64_t packet_offset_ = 0;
  bool eof_ = false;
};

}  // namespace cprof
