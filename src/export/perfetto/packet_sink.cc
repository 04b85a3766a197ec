// Length-delimited packet output.
#include "export/perfetto/packet_sink.h"

#include <cstdio>

#include "proto/cprof_payload_format.h"

namespace cprof {

PacketSink::PacketSink(AtomicFile* file) : file_(file) {
  // Packets are small; a large stdio buffer keeps fwrite calls cheap.
  if (file_->stream()) setvbuf(file_->stream(), nullptr, _IOFBF, 1 << 20);
}

Status PacketSink::Write(const perfetto::protos::TracePacket& packet) {
  const size_t size = packet.ByteSizeLong();
  if (size > (size_t{1} << 30)) {
    return ResourceLimit("{}: packet {} would be {} bytes; protobuf cannot carry it", file_->path(),
                         packets_, size);
  }
  buf_.clear();
  buf_.push_back(static_cast<char>(pb::kTracePacketTag));
  pb::AppendVarint(size, &buf_);
  const size_t header = buf_.size();
  buf_.resize(header + size);
  packet.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(buf_.data() + header));
  RETURN_IF_ERROR(file_->Write(buf_));
  bytes_ += buf_.size();
  ++packets_;
  return Status::Ok();
}

}  // namespace cprof
