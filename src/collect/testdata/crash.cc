// Records SDK spans and steps for a while, then crashes (SIGSEGV): the trace must still hold
// what was recorded before the crash.
//   crash [MILLISECONDS]
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "cann_profiler/cprof.h"

// A store to an address the compiler cannot see is invalid (it drops a plain null store as
// undefined behaviour).
__attribute__((noinline)) void Crash() {
  volatile uintptr_t address = 16;
  *reinterpret_cast<volatile int*>(address) = 42;
}

int main(int argc, char** argv) {
  int ms = argc > 1 ? std::atoi(argv[1]) : 300;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (int step = 0; std::chrono::steady_clock::now() < end; ++step) {
    CPROF_STEP(step);
    CPROF_SCOPE("before_crash");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  {
    CPROF_SCOPE("crashing");
    Crash();
  }
  return 0;
}
