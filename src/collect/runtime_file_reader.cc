// Incremental parsing of the runtime's record files.
#include "collect/runtime_file_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace cprof {
namespace {
const std::string kEmpty;
}  // namespace

RuntimeFileReader::RuntimeFileReader(std::string path) : path_(std::move(path)) {}

RuntimeFileReader::~RuntimeFileReader() {
  if (fd_ >= 0) close(fd_);
}

const std::string& RuntimeFileReader::String(uint32_t id) const {
  auto it = strings_.find(id);
  return it == strings_.end() ? kEmpty : it->second;
}

int64_t RuntimeFileReader::ToNs(uint64_t ts, uint16_t flags) const {
  if ((flags & CPROF_FLAG_NS) || header_.clock_kind == CPROF_CLOCK_NS) return static_cast<int64_t>(ts);
  // Piecewise linear through the (TSC, ns) pairs; outside them, the nearest segment's line.
  const auto& c = clock_;
  if (c.size() < 2) {
    double rate = header_.ticks_per_ns > 0 ? header_.ticks_per_ns : 1.0;
    auto base = c.empty() ? std::make_pair(header_.tsc0, header_.mono0_ns) : c[0];
    return base.second + std::llround((static_cast<double>(ts) - static_cast<double>(base.first)) / rate);
  }
  auto it = std::upper_bound(c.begin(), c.end(), ts, [](uint64_t t, const auto& p) { return t < p.first; });
  size_t hi = std::clamp<size_t>(static_cast<size_t>(it - c.begin()), 1, c.size() - 1);
  const auto& p0 = c[hi - 1];
  const auto& p1 = c[hi];
  double rate = static_cast<double>(p1.first - p0.first) / static_cast<double>(p1.second - p0.second);
  if (!(rate > 0)) rate = header_.ticks_per_ns > 0 ? header_.ticks_per_ns : 1.0;
  return p0.second + std::llround((static_cast<double>(ts) - static_cast<double>(p0.first)) / rate);
}

Status RuntimeFileReader::ReadMore(const std::function<void(const RuntimeRecord&)>& on_record) {
  if (broken_) return Status::Ok();
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return NotFound("{}: {}", path_, strerror(errno));
  }
  // Parsed every 4 MiB: a file read once at the end of a long run can be large.
  constexpr size_t kParseAt = 4u << 20;
  char tmp[1 << 16];
  for (;;) {
    ssize_t n = read(fd_, tmp, sizeof(tmp));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf_.insert(buf_.end(), tmp, tmp + n);
    if (buf_.size() >= kParseAt) Parse(on_record);
  }
  Parse(on_record);
  return Status::Ok();
}

void RuntimeFileReader::Parse(const std::function<void(const RuntimeRecord&)>& on_record) {
  size_t pos = 0;
  const size_t kRec = sizeof(cprof_record);
  if (!has_header_) {
    if (buf_.size() < sizeof(cprof_file_header)) return;
    std::memcpy(&header_, buf_.data(), sizeof(header_));
    if (std::memcmp(header_.magic, CPROF_FILE_MAGIC, 8) != 0 || header_.version != CPROF_FILE_VERSION) {
      broken_ = true;
      ++malformed_;
      return;
    }
    has_header_ = true;
    clock_.emplace_back(header_.tsc0, header_.mono0_ns);
    pos = header_.header_size;
  }
  while (buf_.size() - pos >= kRec) {
    cprof_record head;
    std::memcpy(&head, buf_.data() + pos, kRec);
    if (head.kind == CPROF_REC_CLOCK) {
      if (clock_.empty() || head.ts > clock_.back().first) clock_.emplace_back(head.ts, static_cast<int64_t>(head.a));
      pos += kRec;
      continue;
    }
    if (head.kind != CPROF_REC_CHUNK || head.b > (1u << 26)) {
      // Out of step: nothing after this can be trusted.
      broken_ = true;
      ++malformed_;
      break;
    }
    size_t bytes = head.b * kRec;
    if (buf_.size() - pos - kRec < bytes) break;  // not all written yet
    const char* p = buf_.data() + pos + kRec;
    const char* end = p + bytes;
    int32_t tid = static_cast<int32_t>(head.a);
    while (p + kRec <= end) {
      const cprof_record* r = reinterpret_cast<const cprof_record*>(p);
      size_t ext = r->n_ext;
      if (p + (1 + ext) * kRec > end) {
        ++malformed_;
        break;
      }
      if (r->kind == CPROF_REC_STRING) {
        size_t len = std::min<size_t>(r->a, ext * kRec);
        strings_[r->name] = std::string(p + kRec, len);
      } else if (r->kind != CPROF_REC_PAD) {
        ext_scratch_.resize(ext * kRec / sizeof(uint64_t));
        if (ext) std::memcpy(ext_scratch_.data(), p + kRec, ext * kRec);
        on_record(RuntimeRecord{r, ext_scratch_.data(), ext_scratch_.size(), tid});
      }
      p += (1 + ext) * kRec;
    }
    pos += kRec + bytes;
  }
  buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos));
}

}  // namespace cprof
