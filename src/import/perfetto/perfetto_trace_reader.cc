// Reader for Perfetto protobuf traces: our own .pb files (the whole model, from TrackEvents plus
// the private payload) and TrackEvent traces written by others. Streams the file packet by
// packet; never parses the file as one Trace message (protobuf caps a message at 2 GiB).
#include "import/perfetto/perfetto_trace_reader.h"

#include <google/protobuf/arena.h>

#include "base/byte_source.h"
#include "import/import_memory.h"
#include "import/perfetto/packet_reader.h"
#include "import/perfetto/payload_importer.h"
#include "import/perfetto/track_event_importer.h"
#include "perfetto_trace.pb.h"

namespace cprof {
namespace {

class PerfettoTraceReader : public TraceReader {
 public:
  std::string_view name() const override { return "perfetto_pb"; }

  Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) override {
    ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path, options.decompression));
    PacketReader packets(std::move(source));
    TrackEventImporter events(builder, path);
    PayloadImporter payload(builder, &events, path);
    // Packets are parsed into an arena that is reset every few thousand packets: parsing into
    // one reused heap message would free and reallocate its oneof member every time.
    google::protobuf::Arena arena;
    perfetto::protos::TracePacket* packet = nullptr;
    std::string_view bytes;
    uint64_t count = 0;
    for (;;) {
      ASSIGN_OR_RETURN(bool more, packets.Next(&bytes));
      if (!more) break;
      if (count++ % 4096 == 0) {
        RETURN_IF_ERROR(CheckImportMemory(builder->trace(), options, path));
        arena.Reset();
        packet = google::protobuf::Arena::CreateMessage<perfetto::protos::TracePacket>(&arena);
      }
      if (!packet->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        return InvalidInput("{}: byte {}: malformed TracePacket (protobuf parse failed)", path,
                            packets.packet_offset());
      }
      if (packet->has_cann_private_payload()) {
        RETURN_IF_ERROR(payload.Add(packet->cann_private_payload(), packets.packet_offset()));
        continue;
      }
      RETURN_IF_ERROR(events.AddPacket(*packet));
    }
    if (count == 0) return InvalidInput("{}: byte 0: no packets: the file is empty", path);
    RETURN_IF_ERROR(events.Finish());
    if (payload.seen_header()) return payload.Finish(packets.packet_offset());
    // A trace written by another tool: say where the model came from.
    builder->SetMetadataString(meta::kSourceFormat, "perfetto");
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<TraceReader> NewPerfettoTraceReader() { return std::make_unique<PerfettoTraceReader>(); }

}  // namespace cprof
