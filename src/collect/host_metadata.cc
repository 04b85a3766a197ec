// Host and environment metadata for collected traces.
#include "collect/host_metadata.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

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
  return false;
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
    env[key] = IsSecretEnvName(key) ? std::string("<redacted>") : kv.substr(eq + 1);
  }
  return env.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
}

}  // namespace cprof
