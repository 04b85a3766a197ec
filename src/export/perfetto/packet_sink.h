// Streams TracePackets into a file as the concatenated `packet` fields of a Trace message
// (tag 0x0A, varint length, bytes), so no message ever holds the whole trace.
//
//   AtomicFile file(path);  RETURN_IF_ERROR(file.Open());
//   PacketSink sink(&file);
//   RETURN_IF_ERROR(sink.Write(packet));   // once per packet
//   RETURN_IF_ERROR(file.Commit());
//
// Not thread-safe. Errors name the output file.
#pragma once

#include <cstdint>
#include <string>

#include "base/atomic_file.h"
#include "base/status.h"
#include "perfetto_trace.pb.h"

namespace cprof {

class PacketSink {
 public:
  explicit PacketSink(AtomicFile* file);

  Status Write(const perfetto::protos::TracePacket& packet);
  uint64_t bytes() const { return bytes_; }
  uint64_t packets() const { return packets_; }

 private:
  AtomicFile* file_;
  std::string buf_;
  uint64_t bytes_ = 0;
  uint64_t packets_ = 0;
};

}  // namespace cprof
