// Host and environment metadata for collected traces.
#include "collect/host_metadata.h"

#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>

#include "base/url_password.h"
#include "collect/proc_files.h"

extern char** environ;

namespace cprof {

bool IsSecretEnvName(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const char* word : {"TOKEN", "KEY", "PASSWORD", "PASSWD", "SECRET", "CREDENTIAL"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  // Short words only as whole words: GITHUB_PAT, BASIC_AUTH, not PATH or AUTHOR.
  const std::string padded = "_" + upper + "_";
  for (const char* word : {"_PAT_", "_AUTH_"})
    if (padded.find(word) != std::string::npos) return true;
  return false;
}

std::vector<std::string> RedactedArgv(std::vector<std::string> argv) {
  bool next_is_secret = false;
  for (std::string& arg : argv) {
    if (next_is_secret) {
      next_is_secret = false;
      arg = "<redacted>";
      continue;
    }
    arg = RedactUrlPasswords(std::move(arg));
    if (arg.size() < 2 || arg[0] != '-') continue;
    const size_t name_at = arg.find_first_not_of('-');
    if (name_at == std::string::npos) continue;  // "--", "---": no name (substr(npos) threw)
    const size_t eq = arg.find('=');
    std::string name = arg.substr(name_at, eq == std::string::npos ? std::string::npos : eq - name_at);
    std::replace(name.begin(), name.end(), '-', '_');
    if (!IsSecretEnvName(name)) continue;
    if (eq != std::string::npos) arg = arg.substr(0, eq + 1) + "<redacted>";
    else next_is_secret = true;
  }
  return argv;
}

std::string RedactedEnvironmentJson() {
  nlohmann::ordered_json env = nlohmann::ordered_json::object();
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) entries.emplace_back(*e);
  std::sort(entries.begin(), entries.end());
  for (const std::string& kv : entries) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string key = kv.substr(0, eq);
    env[key] = IsSecretEnvName(key) ? std::string("<redacted>") : RedactUrlPasswords(kv.substr(eq + 1));
  }
  return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

double MeasurePageFaultNs() {
  constexpr size_t kBytes = 8u << 20;
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return -1;
  double best = -1;
  for (int pass = 0; pass < 3; ++pass) {
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    madvise(p, kBytes, MADV_NOHUGEPAGE);  // glibc's heap pages are faulted in 4 KiB at a time
    auto* bytes = static_cast<volatile char*>(p);
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t off = 0; off < kBytes; off += static_cast<size_t>(page)) bytes[off] = 1;
    const auto t1 = std::chrono::steady_clock::now();
    munmap(p, kBytes);
    const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) /
                      static_cast<double>(kBytes / static_cast<size_t>(page));
    if (best < 0 || ns < best) best = ns;
  }
  return best;
}

void AddHostMetadata(TraceBuilder& b) {
  std::string text;
  if (ReadProcFile("/proc/cpuinfo", &text)) {
    size_t pos = text.find("model name");
    if (pos != std::string::npos) {
      size_t colon = text.find(':', pos), eol = text.find('\n', pos);
      if (colon != std::string::npos && colon < eol) {
        std::string model = text.substr(colon + 1, eol - colon - 1);
        model.erase(0, model.find_first_not_of(' '));
        b.SetMetadataString("cpu_model", model);
      }
    }
  }
  b.SetMetadata("cpu_cores", Value::Int(sysconf(_SC_NPROCESSORS_ONLN)));
  if (ReadProcFile("/proc/meminfo", &text)) {
    int64_t kb = ProcField(text, "MemTotal");
    if (kb > 0) b.SetMetadata("mem_total_bytes", Value::Int(kb * 1024));
  }
  utsname u{};
  if (uname(&u) == 0) {
    b.SetMetadataString("kernel", std::string(u.sysname) + " " + u.release);
    b.SetMetadataString("hostname", u.nodename);
  }
  b.SetMetadataString("environment", RedactedEnvironmentJson());
  if (const double fault_ns = MeasurePageFaultNs(); fault_ns > 0)
    b.SetMetadata("page_fault_ns", Value::Int(static_cast<int64_t>(fault_ns + 0.5)));
}

}  // namespace cprof
