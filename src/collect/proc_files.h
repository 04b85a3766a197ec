// Small helpers to read /proc files without iostreams (the samplers read hundreds a second).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cprof {

// Reads a whole (small) file into `out`; false if it cannot be opened.
bool ReadProcFile(const std::string& path, std::string* out);

// The value after "key:" in a "key: value" file (/proc/<pid>/status, /proc/meminfo, io);
// -1 if absent. Units ("kB") are not applied.
int64_t ProcField(std::string_view text, std::string_view key);

// /proc/<pid>/stat split after the parenthesized comm: fields[0] is field 3 (state).
struct ProcStat {
  std::string comm;
  std::vector<std::string_view> fields;
  std::string text;  // owns what fields point into
  // Field N as numbered in proc(5) (1-based; N >= 3).
  int64_t Field(int n) const;
};
bool ReadProcStat(const std::string& path, ProcStat* out);

// Numeric entries of a /proc directory (pids or tids).
std::vector<pid_t> ListNumericDir(const std::string& path);

}  // namespace cprof
