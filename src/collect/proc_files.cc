// /proc file reading helpers.
#include "collect/proc_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace cprof {

bool ReadProcFile(const std::string& path, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

int64_t ProcField(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      std::string_view rest = line.substr(key.size() + 1);
      size_t b = rest.find_first_not_of(" \t");
      if (b == std::string_view::npos) return -1;
      int64_t v = -1;
      std::from_chars(rest.data() + b, rest.data() + rest.size(), v);
      return v;
    }
    pos = eol + 1;
  }
  return -1;
}

int64_t ProcStat::Field(int n) const {
  size_t i = static_cast<size_t>(n - 3);
  if (n < 3 || i >= fields.size()) return -1;
  int64_t v = -1;
  std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), v);
  return v;
}

bool ReadProcStat(const std::string& path, ProcStat* out) {
  if (!ReadProcFile(path, &out->text)) return false;
  const std::string& t = out->text;
  size_t open = t.find('('), close = t.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  out->comm = t.substr(open + 1, close - open - 1);
  out->fields.clear();
  std::string_view rest(t.data() + close + 1, t.size() - close - 1);
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t b = rest.find_first_not_of(" \n", pos);
    if (b == std::string_view::npos) break;
    size_t e = rest.find_first_of(" \n", b);
    if (e == std::string_view::npos) e = rest.size();
    out->fields.push_back(rest.substr(b, e - b));
    pos = e;
  }
  return true;
}

std::vector<pid_t> ListNumericDir(const std::string& path) {
  std::vector<pid_t> out;
  DIR* d = opendir(path.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long v = strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && v > 0) out.push_back(static_cast<pid_t>(v));
  }
  closedir(d);
  return out;
}

}  // namespace cprof
