// Temporary-file-and-rename output.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cprof {

AtomicFile::~AtomicFile() {
  if (file_) fclose(file_);
  if (!committed_ && !tmp_path_.empty()) unlink(tmp_path_.c_str());
}

namespace {

// The folder a temporary file beside `path` goes into, as the user would look for it.
std::string FolderOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// An existing target that is not a regular file or a folder: a device, a FIFO or a socket.
bool IsSpecial(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

}  // namespace

std::string ResolveOutputPath(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {  // a loop of links ends as ELOOP at open time
    // A link to a device, FIFO or socket is opened as given: /dev/stdout leads to
    // /proc/self/fd/1 and, on a pipe, to "pipe:[1234]", which is no path at all.
    if (IsSpecial(p)) break;
    char buf[PATH_MAX];
    const ssize_t n = readlink(p.c_str(), buf, sizeof buf - 1);
    if (n < 0) break;  // not a link (or not there): write it
    std::string link(buf, static_cast<size_t>(n));
    p = link.front() == '/' ? link : FolderOf(p) + "/" + link;
  }
  return p;
}

Status AtomicFile::Open() {
  target_ = ResolveOutputPath(path_);
  if (IsSpecial(target_)) {
    file_ = fopen(target_.c_str(), "wb");
    if (!file_) return InvalidInput("{}: cannot open for writing: {}", path_, strerror(errno));
    return Status::Ok();
  }
  std::string tmpl = target_ + ".tmp.XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    return InvalidInput("{}: cannot create output file in folder {}: {}", path_, FolderOf(target_), strerror(errno));
  }
  struct stat st;
  fchmod(fd, stat(target_.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644);
  tmp_path_ = tmpl;
  file_ = fdopen(fd, "wb");
  if (!file_) {
    close(fd);
    return Internal("{}: fdopen failed: {}", tmp_path_, strerror(errno));
  }
  return Status::Ok();
}

Status AtomicFile::Write(std::string_view bytes) {
  if (!file_) return Internal("{}: write before Open()", path_);
  if (fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    return InvalidInput("{}: write failed: {}", path_, strerror(errno));
  }
  return Status::Ok();
}

Status AtomicFile::Commit() {
  if (!file_) return Internal("{}: commit before Open()", path_);
  const bool direct = tmp_path_.empty();
  // A device or FIFO takes no fsync (EINVAL) and has nothing to rename.
  if (fflush(file_) != 0 || (!direct && fsync(fileno(file_)) != 0)) {
    return InvalidInput("{}: flush failed: {}", path_, strerror(errno));
  }
  fclose(file_);
  file_ = nullptr;
  if (!direct && rename(tmp_path_.c_str(), target_.c_str()) != 0) {
    return InvalidInput("{}: rename failed: {}", path_, strerror(errno));
  }
  committed_ = true;
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  AtomicFile f(path);
  RETURN_IF_ERROR(f.Open());
  RETURN_IF_ERROR(f.Write(bytes));
  return f.Commit();
}

Status CheckCanCreate(const std::string& path) {
  const std::string target = ResolveOutputPath(path);
  struct stat st;
  if (stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return InvalidInput("{}: cannot create output file: it is a folder", path);
  }
  if (IsSpecial(target)) {  // opening a FIFO would wait for its reader
    if (access(target.c_str(), W_OK) != 0) return InvalidInput("{}: cannot write: {}", path, strerror(errno));
    return Status::Ok();
  }
  AtomicFile probe(path);
  return probe.Open();  // the destructor removes the temporary file
}

}  // namespace cprof
