// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`, or `nsys stats`' cache):
// CUDA kernels, runtime and driver calls, memcpy/memset, synchronization, NVTX ranges and marks,
// OS runtime calls and CPU samples, with names from StringIds and launch flows by correlationId.
//
// Tracks: host calls on ThreadTrack(pid, tid) decoded from globalTid (pid = bits 24..47,
// tid = bits 0..23); GPU work on StreamTrack(kGpuStream, deviceId, streamId); synchronization on
// a "CUDA synchronization" child of the device; NVTX start/end ranges (which may overlap) on an
// async child of their thread. Times are the export's ns (relative to the session start, which
// is kept as metadata base_time_ns).
//
// Schema differences between nsys versions are tolerated by probing tables and columns: a table
// that is absent is skipped, a column that is absent reads as NULL.
#pragma once

#include <memory>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewNsysSqliteReader();

// True if the SQLite database at `path` looks like an nsys export (StringIds plus any of the
// CUPTI/NVTX/OSRT/TARGET_INFO tables). Used by format detection.
bool IsNsysDatabase(const std::string& path);

}  // namespace cprof
