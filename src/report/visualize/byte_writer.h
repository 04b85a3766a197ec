// Appends the varint-packed columns of the page's data block (web/src/data/byte_reader.ts
// reads them): unsigned LEB128 varints, zigzag for signed values, little-endian doubles.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace cprof {

class ByteWriter {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Svarint(int64_t v) { Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void F64(double v) {
    char b[8];
    std::memcpy(b, &v, 8);  // x86-64 and aarch64 are little-endian, as the reader expects
    out_.append(b, 8);
  }
  void Bytes(std::string_view s) { out_.append(s); }
  void Utf8(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }

  std::string& str() { return out_; }
  size_t size() const { return out_.size(); }

 private:
  std::string out_;
};

}  // namespace cprof
