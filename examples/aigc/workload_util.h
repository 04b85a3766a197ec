// What the AIGC workloads (gpt.cpp, unet.cpp) share: their flag syntax and the measurements of
// their summary line.
//
//   std::map<std::string, std::string> kv;
//   if (!aigc::SplitFlags(argc, argv, "unet", kUsage, &kv)) return 2;
//   if (!aigc::AssignFlags(kv, "unet", {{"heap", &o.heap}}, {{"steps", &o.steps}})) return 2;
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aigc {

// Splits --name value and --name=value into `kv` (dashes in names become underscores;
// --num_threads, the name `tune --from_diagnosis` uses, is --threads). --help / -h prints `usage`
// and exits 0. Returns false, with a message naming `prog`, on any other argument.
inline bool SplitFlags(int argc, char** argv, const char* prog, const char* usage,
                       std::map<std::string, std::string>* kv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a.rfind("--", 0) != 0) {
      std::fprintf(stderr, "%s: unexpected argument '%s'\n", prog, a.c_str());
      return false;
    }
    a = a.substr(2);
    std::string value;
    if (auto eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a = a.substr(0, eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "%s: --%s needs a value\n", prog, a.c_str());
      return false;
    }
    std::replace(a.begin(), a.end(), '-', '_');
    if (a == "num_threads") a = "threads";
    (*kv)[a] = value;
  }
  return true;
}

// `v` as an int, or nullopt unless all of it is one.
inline std::optional<int> IntValue(const std::string& v) {
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return std::nullopt;
  return static_cast<int>(n);
}

// Stores each flag of `kv` in its target: a string flag as given, an int flag when all of it is
// one. Returns false, with a message naming `prog`, on an unknown flag or a bad number.
inline bool AssignFlags(const std::map<std::string, std::string>& kv, const char* prog,
                        const std::map<std::string, std::string*>& strings,
                        const std::map<std::string, int*>& ints) {
  for (const auto& [k, v] : kv) {
    if (auto s = strings.find(k); s != strings.end()) {
      *s->second = v;
      continue;
    }
    auto i = ints.find(k);
    std::optional<int> n = IntValue(v);
    if (i == ints.end() || !n) {
      std::fprintf(stderr, "%s: bad flag --%s=%s\n", prog, k.c_str(), v.c_str());
      return false;
    }
    *i->second = *n;
  }
  return true;
}

inline double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // KiB on Linux
}

// CPU time of the whole process (every thread), ms: with wall time it tells computing from
// waiting, and it is what a loaded machine disturbs least.
inline double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The p-th percentile by linear interpolation (numpy's default).
inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  double idx = p / 100.0 * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(idx);
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (idx - static_cast<double>(lo));
}

}  // namespace aigc
