// Metadata about the machine and the run: CPU model and core count, kernel, memory, and the
// environment with secrets redacted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_builder.h"

namespace cprof {

// True for environment variable names that may hold secrets (*TOKEN*, *KEY*, *PASSWORD*,
// *PASSWD*, *SECRET*, *CREDENTIAL*, and the words PAT and AUTH between underscores,
// case-insensitive); their values are never recorded.
bool IsSecretEnvName(std::string_view name);

// The command line with secrets replaced by <redacted>: the value of an option named like a
// secret (`--password X`, `--api-key=X`, `--token X`) and passwords in URLs.
std::vector<std::string> RedactedArgv(std::vector<std::string> argv);

// The current environment as a JSON object, secrets replaced by "<redacted>".
std::string RedactedEnvironmentJson();

// What one first-touch page fault of anonymous memory costs on this machine, in ns: the least
// per-page time of a few passes that map and touch 8 MiB (the kernel's fault path plus zeroing
// the page; in a VM, the hypervisor's share too). -1 when mapping fails.
double MeasurePageFaultNs();

// cpu_model, cpu_cores, kernel, mem_total_bytes, hostname, environment, page_fault_ns.
void AddHostMetadata(TraceBuilder& b);

}  // namespace cprof
