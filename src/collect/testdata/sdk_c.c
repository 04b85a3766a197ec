/* The SDK from C: nested spans, a counter, steps, a mark, metadata; exits with argv[1]. */
#include <stdlib.h>
#include <time.h>

#include "cann_profiler/cprof.h"

static void busy_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  cprof_name_t outer = cprof_name("c_outer");
  cprof_name_t inner = cprof_name("c_inner");
  cprof_name_t depth = cprof_name("c_queue_depth");
  cprof_thread_name("c-main");
  cprof_metadata("sdk_language", "c");
  for (int step = 0; step < 5; ++step) {
    cprof_step(step);
    cprof_span_begin(outer);
    busy_ms(2);
    cprof_span_begin(inner);
    busy_ms(3);
    cprof_span_end(inner);
    cprof_counter(depth, step * 10.0);
    cprof_span_end(outer);
  }
  cprof_step(5); /* a step of untraced work that the program ends: 6 ms, not the 20 after */
  busy_ms(6);
  cprof_step_end();
  busy_ms(20);
  cprof_mark(cprof_name("c_done"));
  return argc > 1 ? atoi(argv[1]) : 0;
}
