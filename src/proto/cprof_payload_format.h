// Constants shared by the .pb writer (src/export/perfetto) and reader (src/import/perfetto):
// the private payload's version and chunk size, and the wire-format helpers both sides need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cprof::pb {

// Bump when the meaning of cprof_payload.proto changes incompatibly; readers refuse newer ones.
inline constexpr uint32_t kPayloadFormatVersion = 1;
// Target size of one payload chunk (NOTES.md: keep private packets modest).
inline constexpr size_t kPayloadChunkBytes = 1 << 20;
// The one trusted_packet_sequence_id of files we write.
inline constexpr uint32_t kSequenceId = 1;
// Tag of `repeated TracePacket packet = 1` in Trace: field 1, wire type 2.
inline constexpr uint8_t kTracePacketTag = 0x0A;

// Reference encoding of cprof_payload.proto: row id + 1, 0 = none (UINT32_MAX in the model).
inline constexpr uint32_t ToRef(uint32_t id) { return id == UINT32_MAX ? 0 : id + 1; }
inline constexpr uint32_t FromRef(uint32_t ref) { return ref == 0 ? UINT32_MAX : ref - 1; }

// Appends `v` as a base-128 varint.
inline void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace cprof::pb
