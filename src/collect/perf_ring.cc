// perf_event_open file descriptors and ring buffers.
#include "collect/perf_ring.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace cprof {

int PerfEventOpen(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd, unsigned long flags) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC));
}

PerfRing::~PerfRing() {
  if (base_) munmap(base_, map_bytes_);
  if (fd_ >= 0) close(fd_);
}

PerfRing::PerfRing(PerfRing&& o) noexcept { *this = std::move(o); }

PerfRing& PerfRing::operator=(PerfRing&& o) noexcept {
  if (this == &o) return *this;
  if (base_) munmap(base_, map_bytes_);
  if (fd_ >= 0) close(fd_);
  fd_ = o.fd_;
  base_ = o.base_;
  map_bytes_ = o.map_bytes_;
  data_bytes_ = o.data_bytes_;
  scratch_ = std::move(o.scratch_);
  o.fd_ = -1;
  o.base_ = nullptr;
  return *this;
}

StatusOr<PerfRing> PerfRing::Open(const perf_event_attr& attr, pid_t pid, int cpu) {
  int fd = PerfEventOpen(attr, pid, cpu, -1, 0);
  if (fd < 0) return Unavailable("perf_event_open: {}", strerror(errno));
  PerfRing r;
  r.fd_ = fd;
  return r;
}

Status PerfRing::Map(size_t data_pages) {
  size_t pages = 1;
  while (pages < data_pages) pages <<= 1;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  map_bytes_ = (pages + 1) * page;
  data_bytes_ = pages * page;
  void* p = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    base_ = nullptr;
    return Unavailable("mmap of a perf ring buffer ({} KiB): {}", map_bytes_ / 1024, strerror(errno));
  }
  base_ = p;
  return Status::Ok();
}

Status PerfRing::RedirectTo(const PerfRing& other) {
  if (ioctl(fd_, PERF_EVENT_IOC_SET_OUTPUT, other.fd_) != 0) {
    return Unavailable("PERF_EVENT_IOC_SET_OUTPUT: {}", strerror(errno));
  }
  return Status::Ok();
}

void PerfRing::Enable() const { ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0); }
void PerfRing::Disable() const { ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0); }

void PerfRing::Drain(const std::function<void(const perf_event_header*)>& on_record) {
  if (!base_) return;
  auto* meta = static_cast<perf_event_mmap_page*>(base_);
  const uint8_t* data = static_cast<const uint8_t*>(base_) + (map_bytes_ - data_bytes_);
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  while (tail + sizeof(perf_event_header) <= head) {
    size_t off = static_cast<size_t>(tail % data_bytes_);
    perf_event_header h;
    // The header itself may wrap.
    for (size_t i = 0; i < sizeof(h); ++i) {
      reinterpret_cast<uint8_t*>(&h)[i] = data[(off + i) % data_bytes_];
    }
    if (h.size < sizeof(h) || tail + h.size > head) break;
    const perf_event_header* rec;
    if (off + h.size <= data_bytes_) {
      rec = reinterpret_cast<const perf_event_header*>(data + off);
    } else {
      scratch_.resize(h.size);
      size_t first = data_bytes_ - off;
      std::memcpy(scratch_.data(), data + off, first);
      std::memcpy(scratch_.data() + first, data, h.size - first);
      rec = reinterpret_cast<const perf_event_header*>(scratch_.data());
    }
    on_record(rec);
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

bool PerfRing::ReadCount(double* value) const {
  uint64_t v[3] = {};  // value, time_enabled, time_running
  if (read(fd_, v, sizeof(v)) != static_cast<ssize_t>(sizeof(v))) return false;
  if (v[2] == 0) {
    *value = 0;
    return true;
  }
  *value = static_cast<double>(v[0]) * static_cast<double>(v[1]) / static_cast<double>(v[2]);
  return true;
}

}  // namespace cprof
