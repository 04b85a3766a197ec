// Rng: the tuner's random source, identical on every platform (std:: distributions are not), so a
// seed reproduces a study exactly.
//
//   Rng rng = Rng::ForTrial(seed, trial_number);   // independent stream per trial: resumable
//   double u = rng.Uniform();  size_t i = rng.Index(n);
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace cprof::tune {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed ^ 0x9e3779b97f4a7c15ULL) { Next(); }

  // A stream that depends only on (seed, stream): proposals for trial n never depend on how
  // many random numbers earlier trials drew, so a resumed study proposes what it would have.
  static Rng ForTrial(uint64_t seed, uint64_t stream) { return Rng(Mix(seed) ^ Mix(stream + 0x51ed27)); }

  uint64_t Next() {  // splitmix64
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform in [0, n); n > 0.
  size_t Index(size_t n) { return static_cast<size_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }
  // Standard normal (Box-Muller).
  double Normal() {
    double u1 = Uniform(), u2 = Uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  bool Bernoulli(double p) { return Uniform() < p; }

  static uint64_t Mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }

 private:
  uint64_t state_;
};

}  // namespace cprof::tune
