// A loop whose allocator gives its memory back to the OS every step, or keeps it: steps for
// SECONDS, each allocating and filling four blocks of 4 MiB and freeing them, marked with the SDK.
//   heap_churn SECONDS churn|keep
// churn: glibc's mmap threshold pinned at its 128 KiB default, so every block is mmapped and
// munmapped (page faults on every touch, every step); keep: thresholds raised (32 MiB mmap, 1 GiB
// trim), as `diagnose` suggests, so the heap keeps the blocks and later steps fault nothing.
#include <malloc.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cann_profiler/cprof.h"

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  const bool keep = argc > 2 && std::string(argv[2]) == "keep";
  if (keep) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  } else {
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
  }
  constexpr size_t kBlock = 4u << 20;
  constexpr int kBlocks = 4;
  volatile unsigned sum = 0;
  const auto start = std::chrono::steady_clock::now();
  int s = 0;
  for (; std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds; ++s) {
    CPROF_STEP(s);
    std::vector<char*> blocks;
    for (int b = 0; b < kBlocks; ++b) {
      char* p = static_cast<char*>(std::malloc(kBlock));
      std::memset(p, s + b, kBlock);
      sum = sum + static_cast<unsigned char>(p[kBlock / 2]);
      blocks.push_back(p);
    }
    for (char* p : blocks) std::free(p);
  }
  CPROF_STEP(s);  // ends the last step
  return sum == 12345 ? 1 : 0;
}
