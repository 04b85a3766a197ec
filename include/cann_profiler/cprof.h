/* cann-profiler SDK: user spans, counters and step markers in traces that `cann-profiler trace`
 * collects. Link with libcprof.so (-lcprof). Without `trace` around it every call is a cheap
 * no-op; define CPROF_DISABLE to compile the C++ macros away entirely.
 *
 * C:
 *   #include <cann_profiler/cprof.h>
 *   static cprof_name_t decode;
 *   if (!decode) decode = cprof_name("decode");   // intern once per name
 *   cprof_step(step);                             // step `step` starts on this thread
 *   ...                                           // (after the loop: cprof_step_end())
 *   cprof_span_begin(decode);
 *   ...
 *   cprof_span_end(decode);
 *   cprof_counter(cprof_name("queue_depth"), 12);
 *
 * C++:
 *   void Decode() {
 *     CPROF_SCOPE("decode");                      // a span for the rest of this scope
 *     ...
 *   }
 *   CPROF_STEP(step);
 *
 * Then: cann-profiler trace -- ./server --threads 8
 *
 * Threads: every function may be called from any thread. Spans nest per thread: end a span on
 * the thread that began it. The hot path (span begin/end, counters) takes no lock and makes no
 * system call: records go to a per-thread buffer that a background thread writes out.
 * Names: cprof_name() interns a string (takes a lock; call it once per name, not per event).
 * Failure: nothing here fails or throws; if the trace folder cannot be written, events are
 * dropped and the trace says so. */
#ifndef CANN_PROFILER_CPROF_H_
#define CANN_PROFILER_CPROF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CPROF_API __attribute__((visibility("default")))
#else
#define CPROF_API
#endif

/* An interned name; 0 is "no name" (and what cprof_name returns when not traced). */
typedef uint32_t cprof_name_t;

/* 1 when this process is being traced (records are kept), else 0. */
CPROF_API int cprof_enabled(void);
/* Interns `name` (copied). Thread-safe; takes a lock: call once per distinct name. */
CPROF_API cprof_name_t cprof_name(const char* name);

/* A span on the calling thread. cprof_span_end's name may be 0 (ends the innermost span). */
CPROF_API void cprof_span_begin(cprof_name_t name);
CPROF_API void cprof_span_end(cprof_name_t name);
/* A span whose times the caller measured (CLOCK_MONOTONIC ns, e.g. Python's
 * time.monotonic_ns()), in category `category` (0 = "user"). */
CPROF_API void cprof_span_ns(cprof_name_t name, cprof_name_t category, int64_t start_ns,
                             int64_t end_ns);
/* A value of a counter track (per process) from now on. */
CPROF_API void cprof_counter(cprof_name_t name, double value);
/* Step `step` starts now on this thread (the previous step of this thread ends). Shows as
 * "ProfilerStep#<step>" so the step detector finds it. */
CPROF_API void cprof_step(int64_t step);
/* The current step of this thread ends now (call it after the last step). A last step that is
 * never ended ends with the thread's last span or operator in it, which misses untraced work at
 * its end; without any, with the process's last record. */
CPROF_API void cprof_step_end(void);
/* An instant event. */
CPROF_API void cprof_mark(cprof_name_t name);
/* Names the calling thread in the trace. */
CPROF_API void cprof_thread_name(const char* name);
/* A key/value pair for the trace's metadata. */
CPROF_API void cprof_metadata(const char* key, const char* value);
/* CLOCK_MONOTONIC in ns (the trace's clock). */
CPROF_API int64_t cprof_now_ns(void);
/* Writes buffered records of every thread now (normally done every 50 ms and at exit). */
CPROF_API void cprof_flush(void);

#ifdef __cplusplus
}  /* extern "C" */

namespace cprof {

/* RAII span: begins in the constructor, ends in the destructor. */
class ScopedSpan {
 public:
  explicit ScopedSpan(cprof_name_t name) : name_(name) { cprof_span_begin(name_); }
  ~ScopedSpan() { cprof_span_end(name_); }
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

 private:
  cprof_name_t name_;
};

}  // namespace cprof

#define CPROF_INTERNAL_CONCAT2(a, b) a##b
#define CPROF_INTERNAL_CONCAT(a, b) CPROF_INTERNAL_CONCAT2(a, b)

#if defined(CPROF_DISABLE)
#define CPROF_SCOPE(name) \
  do {                    \
  } while (0)
#define CPROF_STEP(step) \
  do {                   \
  } while (0)
#define CPROF_COUNTER(name, value) \
  do {                             \
  } while (0)
#else
/* A span named `name` (a string literal) from here to the end of the enclosing scope. */
#define CPROF_SCOPE(name)                                                                     \
  static const cprof_name_t CPROF_INTERNAL_CONCAT(cprof_name_, __LINE__) = cprof_name(name); \
  ::cprof::ScopedSpan CPROF_INTERNAL_CONCAT(cprof_span_, __LINE__)(CPROF_INTERNAL_CONCAT(cprof_name_, __LINE__))
#define CPROF_STEP(step) cprof_step(step)
#define CPROF_COUNTER(name, value)                                  \
  do {                                                              \
    static const cprof_name_t cprof_counter_name_ = cprof_name(name); \
    cprof_counter(cprof_counter_name_, (value));                    \
  } while (0)
#endif

#endif /* __cplusplus */

#endif /* CANN_PROFILER_CPROF_H_ */
