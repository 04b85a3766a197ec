/* The binary format the in-process runtime (libcprof.so) writes and `trace` reads: one file per
 * traced process, `<session dir>/rt-<pid>.bin`, appended to while the process runs.
 *
 *   file   := header record*
 *   header := cprof_file_header (64 bytes)
 *   record := cprof_record (32 bytes), followed by `n_ext` 32-byte extension blocks
 *
 * Records of one thread come in chunks: a CPROF_REC_CHUNK record (a = tid, b = number of 32-byte
 * blocks that follow) precedes each flushed range of that thread's buffer. Timestamps are TSC
 * ticks (header.clock_kind == CPROF_CLOCK_TSC) mapped to CLOCK_MONOTONIC ns through the
 * CPROF_REC_CLOCK pairs, or CLOCK_MONOTONIC ns directly where CPROF_FLAG_NS is set (records
 * stamped by Python). Strings are defined once per file by CPROF_REC_STRING (id in `name`) and
 * referred to by id; id 0 is the empty string. A definition may follow its first use (threads
 * flush independently), so readers collect all strings first.
 *
 * Plain C, so the runtime, the SDK header's users and the reader share one definition. */
#ifndef CPROF_COLLECT_RUNTIME_RECORD_FORMAT_H_
#define CPROF_COLLECT_RUNTIME_RECORD_FORMAT_H_

#include <stdint.h>

#define CPROF_FILE_MAGIC "CPRFRT01"
#define CPROF_FILE_VERSION 1u

enum { CPROF_CLOCK_TSC = 0, CPROF_CLOCK_NS = 1 };

typedef struct cprof_file_header {
  char magic[8];          /* CPROF_FILE_MAGIC */
  uint32_t version;       /* CPROF_FILE_VERSION */
  uint32_t header_size;   /* sizeof(cprof_file_header) */
  int32_t pid;
  int32_t ppid;
  uint32_t clock_kind;    /* CPROF_CLOCK_* */
  uint32_t reserved0;
  uint64_t tsc0;          /* a calibration pair taken when the file was opened ... */
  int64_t mono0_ns;
  double ticks_per_ns;    /* ... and the rate measured then (used if no later pair exists) */
  uint64_t reserved1;
} cprof_file_header;

enum cprof_record_kind {
  CPROF_REC_PAD = 0,         /* filler at the end of a ring buffer; skipped */
  CPROF_REC_CHUNK = 1,       /* a = tid, b = blocks that follow */
  CPROF_REC_CLOCK = 2,       /* ts = TSC ticks, a = CLOCK_MONOTONIC ns, read together */
  CPROF_REC_STRING = 3,      /* name = id, a = length; the bytes fill the extension blocks */
  CPROF_REC_SPAN_BEGIN = 4,  /* name, ts, b = category string id */
  CPROF_REC_SPAN_END = 5,    /* name (0 = innermost open span), ts */
  CPROF_REC_SPAN = 6,        /* a complete span: name, ts = start, a = end, b = category id */
  CPROF_REC_COUNTER = 7,     /* name, ts, a = the double's bits */
  CPROF_REC_STEP = 8,        /* a step starts: name (e.g. "ProfilerStep"), ts, a = step number */
  CPROF_REC_INSTANT = 9,     /* name, ts, b = category id */
  CPROF_REC_OP_BEGIN = 10,   /* PyTorch op: name, ts, a = handle, b = sequence nr (int64),
                                flags = CPROF_OP_*; extension: input descriptors (below) */
  CPROF_REC_OP_END = 11,     /* name, ts, a = handle */
  CPROF_REC_MEMORY = 12,     /* ts, a = address, b = bytes (int64, negative = free; with
                                CPROF_MEM_FREE a free of the block allocated at a, size
                                unknown to the writer); one extension block: total allocated,
                                total reserved, device (-1 = unknown / host) */
  CPROF_REC_METADATA = 13,   /* name = key id, a = value string id */
  CPROF_REC_PY_SAMPLE = 14,  /* ts (ns), a = tid of the sampled thread, name = stack string id:
                                "file:function:line" frames separated by ';', outermost first */
  CPROF_REC_THREAD_NAME = 15, /* name = thread name id, a = tid */
  CPROF_REC_STEP_END = 16     /* ts: the thread's current step ends (no new one starts) */
};

/* flags bits */
#define CPROF_FLAG_NS 0x8000u     /* ts (and a for SPAN) are CLOCK_MONOTONIC ns, not TSC */
#define CPROF_OP_SCOPE_MASK 0x00ffu /* at::RecordScope */
#define CPROF_OP_ASYNC 0x0100u
#define CPROF_OP_TRUNCATED 0x0200u  /* more inputs or dims than the extension holds */
#define CPROF_MEM_FREE 0x0001u      /* MEMORY: a free by address */

/* Op input descriptors in the extension blocks, as 64-bit words:
 *   word 0: number of inputs described
 *   per input: a header word (kind | dtype << 8 | ndim << 16), then
 *     tensor: ndim dims; int/double/bool scalar: one value word (double as bits); else nothing. */
enum { CPROF_INPUT_TENSOR = 0, CPROF_INPUT_INT = 1, CPROF_INPUT_DOUBLE = 2, CPROF_INPUT_BOOL = 3,
       CPROF_INPUT_NONE = 4, CPROF_INPUT_TENSOR_LIST = 5, CPROF_INPUT_OTHER = 6 };
#define CPROF_MAX_OP_EXT_BLOCKS 8

typedef struct cprof_record {
  uint8_t kind;    /* cprof_record_kind */
  uint8_t n_ext;   /* 32-byte extension blocks that follow */
  uint16_t flags;
  uint32_t name;   /* string id */
  uint64_t ts;
  uint64_t a;
  uint64_t b;
} cprof_record;

#ifdef __cplusplus
static_assert(sizeof(cprof_record) == 32, "records are 32 bytes");
static_assert(sizeof(cprof_file_header) == 64, "the header is 64 bytes");
#else
_Static_assert(sizeof(cprof_record) == 32, "records are 32 bytes");
_Static_assert(sizeof(cprof_file_header) == 64, "the header is 64 bytes");
#endif

#endif /* CPROF_COLLECT_RUNTIME_RECORD_FORMAT_H_ */
