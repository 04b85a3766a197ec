// String-aware bracket matching over raw JSON bytes, 64 bytes at a time: finds where one event
// object ends without parsing it, so a huge events array can be cut into events before simdjson
// (whose documents are limited to 4 GiB) parses each one.
//
//   size_t end = FindCompositeEnd(p, len);   // p[0] == '{' or '['
//   if (end == kIncomplete) { /* need more bytes */ }
//   std::string_view event(p, end);
//
// Mismatched brackets ('{' closed by ']') are not detected here; the parser that reads the value
// afterwards reports them. Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cprof::json {

inline constexpr size_t kIncomplete = SIZE_MAX;

// Bytes that must be readable (not necessarily valid) past `p + len` for the functions below.
inline constexpr size_t kScanPadding = 64;

// `p[0]` is '{' or '['. Returns the length of the balanced value (one past its closing bracket),
// or kIncomplete if `len` bytes end first. Brackets inside strings, and escaped quotes, are skipped.
size_t FindCompositeEnd(const char* p, size_t len);

// `p[0]` is '"'. Returns the length of the string token including both quotes, or kIncomplete.
size_t FindStringEnd(const char* p, size_t len);

namespace internal {
// The SIMD-free reference of FindCompositeEnd, used by tests to check the block scanners.
size_t FindCompositeEndScalar(const char* p, size_t len);
// The SSE2 (or plain C++) block scanner; FindCompositeEnd uses AVX2 instead where the CPU has it.
size_t FindCompositeEndPortable(const char* p, size_t len);
}  // namespace internal

}  // namespace cprof::json
