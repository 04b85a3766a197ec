// The SDK from C++: RAII scopes on two threads and counters.
#include <chrono>
#include <thread>

#include "cann_profiler/cprof.h"

void Work(int id) {
  for (int i = 0; i < 20; ++i) {
    CPROF_SCOPE("cpp_work");
    {
      CPROF_SCOPE("cpp_inner");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    CPROF_COUNTER("cpp_items", i + id * 100);
  }
}

int main() {
  std::thread t(Work, 1);
  Work(0);
  t.join();
  return 0;
}
