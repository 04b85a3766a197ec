// A workload with known hot functions for the CPU sampling tests: the main thread, a thread
// started later and a forked child each spin in their own named function until they used
// SECONDS of CPU time (CPU, not wall time: samples count CPU time, and a busy machine must not
// make the test flaky).
//   hot_functions SECONDS
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

extern "C" {
static double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

__attribute__((noinline)) double cprof_test_spin(double seconds, double seed) {
  double end = ThreadCpuSeconds() + seconds;
  volatile double x = seed;
  while (ThreadCpuSeconds() < end) {
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 0.5;
  }
  return x;
}
__attribute__((noinline)) double cprof_test_hot_main(double s) { return cprof_test_spin(s, 1) + 1; }
__attribute__((noinline)) double cprof_test_hot_thread(double s) { return cprof_test_spin(s, 2) + 1; }
__attribute__((noinline)) double cprof_test_hot_child(double s) { return cprof_test_spin(s, 3) + 1; }
__attribute__((noinline)) double cprof_test_caller(double s) { return cprof_test_hot_main(s) + 1; }
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  // Both started after the target began running: inheritance must follow them.
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cprof_test_hot_thread(seconds);
  });
  pid_t child = fork();
  if (child == 0) {
    cprof_test_hot_child(seconds);
    _exit(0);
  }
  double r = cprof_test_caller(seconds);
  t.join();
  waitpid(child, nullptr, 0);
  return r > 0 ? 0 : 1;
}
