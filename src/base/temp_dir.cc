// MakeTempDir: see temp_dir.h.
#include "base/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace cprof {

StatusOr<std::string> MakeTempDir(std::string_view prefix) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec) {
    const char* tmpdir = std::getenv("TMPDIR");
    return InvalidInput("cannot create a temporary folder: TMPDIR '{}': {}", tmpdir ? tmpdir : "", ec.message());
  }
  std::string path = (root / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(path.data()) == nullptr)
    return InvalidInput("cannot create a temporary folder {}: {}", path, std::strerror(errno));
  return path;
}

}  // namespace cprof
