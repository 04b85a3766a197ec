// File and gzip byte sources.
#include "base/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/byte_size.h"

namespace cprof {
namespace {

class FileSource : public ByteSource {
 public:
  FileSource(std::string path, int fd, uint64_t size) : ByteSource(std::move(path)), fd_(fd), size_(size) {}
  ~FileSource() override { close(fd_); }

  StatusOr<size_t> Read(char* dst, size_t n) override {
    for (;;) {
      ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) {
        offset_ += static_cast<uint64_t>(r);
        // Drop what we have read from the page cache's accounting for long sequential reads.
        if (offset_ - advised_ > (64u << 20)) {
          posix_fadvise(fd_, 0, static_cast<off_t>(offset_), POSIX_FADV_DONTNEED);
          advised_ = offset_;
        }
        return static_cast<size_t>(r);
      }
      if (errno != EINTR) return InvalidInput("{}: read failed at byte {}: {}", path_, offset_, strerror(errno));
    }
  }
  uint64_t file_offset() const override { return offset_; }
  uint64_t file_size() const override { return size_; }
  bool compressed() const override { return false; }

 private:
  int fd_;
  uint64_t size_;
  uint64_t offset_ = 0;
  uint64_t advised_ = 0;
};

class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> file, const DecompressionLimits& limits)
      : ByteSource(file->path()), file_(std::move(file)), in_(1 << 20), limits_(limits) {
    std::memset(&zs_, 0, sizeof(zs_));
    inflateInit2(&zs_, 15 + 32);  // 32: accept gzip and zlib headers
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  StatusOr<size_t> Read(char* dst, size_t n) override {
    if (done_) return size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0) {
        ASSIGN_OR_RETURN(size_t got, file_->Read(in_.data(), in_.size()));
        if (got == 0) {
          if (!at_member_end_) {
            return InvalidInput("{}: gzip stream truncated at compressed byte {}", path_,
                                file_->file_offset());
          }
          done_ = true;
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(got);
      }
      at_member_end_ = false;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        at_member_end_ = true;
        inflateReset(&zs_);  // concatenated gzip members continue
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return InvalidInput("{}: corrupt gzip data near compressed byte {}: {}", path_,
                            file_->file_offset() - zs_.avail_in, zs_.msg ? zs_.msg : "inflate error");
      }
    }
    const size_t produced = n - zs_.avail_out;
    produced_ += produced;
    RETURN_IF_ERROR(CheckLimits());
    return produced;
  }
  uint64_t file_offset() const override { return file_->file_offset() - zs_.avail_in; }
  uint64_t file_size() const override { return file_->file_size(); }
  bool compressed() const override { return true; }

 private:
  Status CheckLimits() const {
    if (limits_.max_bytes != 0 && produced_ > limits_.max_bytes) {
      return ResourceLimit("{}: gzip data expands past the limit of {} of decompressed data", path_,
                           FormatByteSize(limits_.max_bytes));
    }
    const uint64_t consumed = std::max<uint64_t>(1, file_offset());
    if (limits_.max_ratio != 0 && produced_ > DecompressionLimits::kRatioCheckFloor &&
        produced_ / consumed > limits_.max_ratio) {
      return ResourceLimit(
          "{}: gzip data expands more than {}:1 ({} from the first {}), a decompression bomb; if the "
          "file is genuine, raise --max_gzip_ratio",
          path_, limits_.max_ratio, FormatByteSize(produced_), FormatByteSize(consumed));
    }
    return Status::Ok();
  }

  std::unique_ptr<ByteSource> file_;
  std::vector<char> in_;
  z_stream zs_;
  DecompressionLimits limits_;
  uint64_t produced_ = 0;
  bool done_ = false;
  bool at_member_end_ = false;
};

StatusOr<std::unique_ptr<ByteSource>> OpenPlain(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("{}: no such file", path);
    return InvalidInput("{}: cannot open: {}", path, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    return InvalidInput("{}: is a directory, not a file", path);
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteSource>(new FileSource(path, fd, static_cast<uint64_t>(st.st_size)));
}

}  // namespace

bool IsGzipFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char magic[2] = {0, 0};
  bool gz = ::read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  close(fd);
  return gz;
}

StatusOr<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path, const DecompressionLimits& limits) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> file, OpenPlain(path));
  if (!IsGzipFile(path)) return file;
  return std::unique_ptr<ByteSource>(new GzipSource(std::move(file), limits));
}

StatusOr<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes, const DecompressionLimits& limits) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> src, OpenByteSource(path, limits));
  auto too_big = [&] {
    return ResourceLimit("{}: the file is larger than the limit of {} for reading it whole", path,
                         FormatByteSize(max_bytes));
  };
  if (max_bytes != 0 && !src->compressed() && src->file_size() > max_bytes) return too_big();
  std::string out;
  out.resize(src->compressed() ? 1 << 20 : src->file_size() + 1);
  size_t len = 0;
  for (;;) {
    if (max_bytes != 0 && len > max_bytes) return too_big();
    if (len == out.size()) out.resize(out.size() * 2);
    ASSIGN_OR_RETURN(size_t n, src->Read(out.data() + len, out.size() - len));
    if (n == 0) break;
    len += n;
  }
  out.resize(len);
  return out;
}

}  // namespace cprof
