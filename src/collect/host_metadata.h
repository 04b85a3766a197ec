// Metadata about the machine and the run: CPU model and core count, kernel, memory, and the
// environment with secrets redacted.
#pragma once

#include <string>
#include <string_view>

#include "model/trace_builder.h"

namespace cprof {

// True for environment variable names that may hold secrets (*TOKEN*, *KEY*, *PASSWORD*,
// *PASSWD*, *SECRET*, *CREDENTIAL*, case-insensitive); their values are never recorded.
bool IsSecretEnvName(std::string_view name);

// The current environment as a JSON object, secrets replaced by "<redacted>".
std::string RedactedEnvironmentJson();

// What one first-touch page fault of anonymous memory costs on this machine, in ns: the least
// per-page time of a few passes that map and touch 8 MiB (the kernel's fault path plus zeroing
// the page; in a VM, the hypervisor's share too). -1 when mapping fails.
double MeasurePageFaultNs();

// cpu_model, cpu_cores, kernel, mem_total_bytes, hostname, environment, page_fault_ns.
void AddHostMetadata(TraceBuilder& b);

}  // namespace cprof
