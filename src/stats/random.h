// A small, fast, seedable random generator whose output is the same on every platform and
// standard library, so a bootstrap run with the same seed gives the same interval everywhere.
//
//   Random rng(42);
//   size_t i = rng.Index(n);     // uniform in [0, n), unbiased
//
// std::mt19937 is reproducible but std::uniform_int_distribution is not (its algorithm is
// implementation-defined), hence this class: xoshiro256** seeded by splitmix64, and Lemire's
// multiply-and-reject for bounded integers. Not for cryptography. Not thread-safe: one per thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cprof {

class Random {
 public:
  explicit Random(uint64_t seed);

  uint64_t Next();
  // Uniform in [0, n); n must be > 0.
  uint64_t Index(uint64_t n);

 private:
  uint64_t s_[4];
};

}  // namespace cprof
