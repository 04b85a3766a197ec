// PerfRing: one perf_event_open file descriptor and, for sampling events, its mmap'ed ring
// buffer. Drain() copies out every complete record the kernel has written (records that wrap
// around the ring's end come out contiguous) and hands the space back.
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace cprof {

class PerfRing {
 public:
  PerfRing() = default;
  ~PerfRing();
  PerfRing(PerfRing&& o) noexcept;
  PerfRing& operator=(PerfRing&& o) noexcept;
  PerfRing(const PerfRing&) = delete;
  PerfRing& operator=(const PerfRing&) = delete;

  // perf_event_open(attr, pid, cpu, group_fd = -1). kUnavailable carries errno's text.
  static StatusOr<PerfRing> Open(const perf_event_attr& attr, pid_t pid, int cpu);
  // Maps a ring of 2^n data pages (n from `data_pages`, rounded up to a power of two).
  Status Map(size_t data_pages);
  size_t data_bytes() const { return data_bytes_; }
  // Sends this event's records to `other`'s ring (same CPU): PERF_EVENT_IOC_SET_OUTPUT.
  Status RedirectTo(const PerfRing& other);

  // Calls `on_record` with each complete record (header first), then frees the space.
  void Drain(const std::function<void(const perf_event_header* record)>& on_record);
  // read() of a counting event: value scaled by time_enabled/time_running; false on error.
  bool ReadCount(double* value) const;
  void Enable() const;
  void Disable() const;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  void* base_ = nullptr;  // header page + data pages
  size_t map_bytes_ = 0;
  size_t data_bytes_ = 0;
  std::vector<uint8_t> scratch_;
};

// perf_event_open(2), which glibc does not wrap.
int PerfEventOpen(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags);

}  // namespace cprof
