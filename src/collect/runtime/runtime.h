/* The runtime's internal C API, for code inside the traced process that writes records beside
 * the public SDK (libcprof_torch.so, the Python shim). Exported by libcprof.so.
 *
 *   cprof_record* r = cprof_rt_reserve(1 + ext);   // NULL: not traced
 *   if (r) { r->kind = CPROF_REC_OP_END; ...; cprof_rt_commit(); }
 *
 * cprof_rt_reserve returns `blocks` contiguous 32-byte blocks in the calling thread's buffer;
 * cprof_rt_commit publishes them. Nothing else may run on this thread in between (no other
 * reserve, no cprof_* call). `blocks` is at most CPROF_RT_MAX_BLOCKS. */
#ifndef CPROF_COLLECT_RUNTIME_RUNTIME_H_
#define CPROF_COLLECT_RUNTIME_RUNTIME_H_

#include <stddef.h>
#include <stdint.h>

#include "cann_profiler/cprof.h"
#include "collect/runtime/record_format.h"

#define CPROF_RT_MAX_BLOCKS 64

#ifdef __cplusplus
extern "C" {
#endif

CPROF_API cprof_record* cprof_rt_reserve(unsigned blocks);
CPROF_API void cprof_rt_commit(void);
/* A timestamp in the file's clock (TSC ticks or ns: see record_format.h). */
CPROF_API uint64_t cprof_rt_now(void);
/* Interns `len` bytes of `s`; 0 when not traced. Takes a lock. */
CPROF_API uint32_t cprof_rt_intern(const char* s, size_t len);
/* A Python stack sample of thread `tid`, stamped `ts_ns` (CLOCK_MONOTONIC). */
CPROF_API void cprof_rt_py_sample(int64_t tid, uint32_t stack, int64_t ts_ns);
/* Records dropped because the session file could not be written. */
CPROF_API uint64_t cprof_rt_dropped(void);

#ifdef __cplusplus
}
#endif

#endif /* CPROF_COLLECT_RUNTIME_RUNTIME_H_ */
