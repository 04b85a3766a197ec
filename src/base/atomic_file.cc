// Temporary-file-and-rename output.
#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>

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

}  // namespace

Status AtomicFile::Open() {
  std::string tmpl = path_ + ".tmp.XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    return InvalidInput("{}: cannot create output file in folder {}: {}", path_, FolderOf(path_), strerror(errno));
  }
  fchmod(fd, 0644);
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
  if (fflush(file_) != 0 || fsync(fileno(file_)) != 0) {
    return InvalidInput("{}: flush failed: {}", path_, strerror(errno));
  }
  fclose(file_);
  file_ = nullptr;
  if (rename(tmp_path_.c_str(), path_.c_str()) != 0) {
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
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return InvalidInput("{}: cannot create output file: it is a folder", path);
  }
  AtomicFile probe(path);
  return probe.Open();  // the destructor removes the temporary file
}

}  // namespace cprof
