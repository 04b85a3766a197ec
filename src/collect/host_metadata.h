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

// cpu_model, cpu_cores, kernel, mem_total_bytes, hostname, environment.
void AddHostMetadata(TraceBuilder& b);

}  // namespace cprof
