// FNV-1a, the one string hash of the project: stable across runs, builds and machines, so it can
// name things in outputs (content hashes of traces, tags of cut names, synthetic track ids).
//
//   uint64_t h = Fnv1a("aten::mm");                       // the standard 64-bit FNV-1a
//   uint64_t scoped = Fnv1a(id, kFnv1aBasis ^ seed);      // a separate family per seed
#pragma once

#include <cstdint>
#include <string_view>

namespace cprof {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;

constexpr uint64_t Fnv1a(std::string_view s, uint64_t basis = kFnv1aBasis) {
  uint64_t h = basis;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace cprof
