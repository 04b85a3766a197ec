// Streaming packet framing of Perfetto trace files.
#include "import/perfetto/packet_reader.h"

#include <algorithm>
#include <cstring>

#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {
constexpr size_t kReadChunk = 4 << 20;
// Larger packets are not something a trace writer makes; a garbage length usually is.
constexpr uint64_t kMaxPacketBytes = uint64_t{1} << 30;
}  // namespace

PacketReader::PacketReader(std::unique_ptr<ByteSource> source) : source_(std::move(source)), buf_(kReadChunk) {}

Status PacketReader::Fill(size_t n) {
  if (available() >= n || eof_) return Status::Ok();
  // Move the unread tail to the front, grow if one packet needs more room, then read.
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, available());
    buf_offset_ += pos_;
    end_ -= pos_;
    pos_ = 0;
  }
  // Grow only as data arrives: a corrupt length in a small file must not allocate (and zero) up
  // to kMaxPacketBytes before the read finds the file too short.
  while (end_ < n && !eof_) {
    if (end_ == buf_.size()) buf_.resize(std::min(n, buf_.size() * 2));
    ASSIGN_OR_RETURN(size_t got, source_->Read(buf_.data() + end_, buf_.size() - end_));
    if (got == 0) eof_ = true;
    end_ += got;
  }
  return Status::Ok();
}

StatusOr<bool> PacketReader::Next(std::string_view* packet) {
  RETURN_IF_ERROR(Fill(11));  // tag + the longest varint
  if (available() == 0) return false;
  packet_offset_ = buf_offset_ + pos_;
  const auto* p = reinterpret_cast<const uint8_t*>(buf_.data() + pos_);
  if (p[0] != pb::kTracePacketTag) {
    return InvalidInput("{}: byte {}: expected a TracePacket (tag 0x0a) but found byte 0x{:02x}; the file is "
                        "corrupt or not a Perfetto trace", path(), packet_offset_, p[0]);
  }
  uint64_t len = 0;
  size_t i = 1;
  for (int shift = 0;; shift += 7, ++i) {
    if (i >= available()) {
      return InvalidInput("{}: byte {}: truncated: the file ends inside a packet header", path(), packet_offset_);
    }
    if (shift > 63) {
      return InvalidInput("{}: byte {}: malformed packet length (varint longer than 10 bytes)", path(),
                          packet_offset_);
    }
    len |= uint64_t{p[i] & 0x7fu} << shift;
    if ((p[i] & 0x80) == 0) break;
  }
  const size_t header = i + 1;
  if (len > kMaxPacketBytes) {
    return InvalidInput("{}: byte {}: packet length {} is implausible (limit {} bytes); the file is corrupt",
                        path(), packet_offset_, len, kMaxPacketBytes);
  }
  RETURN_IF_ERROR(Fill(header + len));
  if (available() < header + len) {
    return InvalidInput("{}: byte {}: truncated: the packet declares {} bytes but the file ends after {}", path(),
                        packet_offset_, len, available() - header);
  }
  *packet = std::string_view(buf_.data() + pos_ + header, len);
  pos_ += header + len;
  return true;
}

}  // namespace cprof
