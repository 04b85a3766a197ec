// A training-loop stand-in: STEPS steps of NORMAL_MS each, every SLOW_EVERY-th step SLOW_MS
// (0 = none slow). Steps are marked with the SDK, as a user would.
//   steps STEPS NORMAL_MS SLOW_MS SLOW_EVERY
#include <chrono>
#include <cstdlib>
#include <thread>

#include "cann_profiler/cprof.h"

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 100;
  int normal = argc > 2 ? std::atoi(argv[2]) : 10;
  int slow = argc > 3 ? std::atoi(argv[3]) : 300;
  int every = argc > 4 ? std::atoi(argv[4]) : 10;
  for (int s = 0; s < steps; ++s) {
    CPROF_STEP(s);
    bool is_slow = every > 0 && s % every == every - 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(is_slow ? slow : normal));
  }
  CPROF_STEP(steps);  // ends the last step
  return 0;
}
