// What the PyTorch a trace was taken with can do, from its version text (`torch.__version__`,
// the collector's `torch_version` metadata): "1.13.1", "2.6.0+cu124", "2.1.0a0+git1234".
//
//   if (!TorchHasCompile(version)) ... // torch.compile needs PyTorch 2.0
//
// An empty or unreadable version is unknown: every check then answers as for a recent PyTorch,
// so a trace that does not say keeps today's suggestions.
#pragma once

#include <optional>
#include <string_view>

namespace cprof {

// The major version of a PyTorch version text; nullopt when it does not start with a number.
std::optional<int> TorchMajorVersion(std::string_view version);

// False only when `version` is known and older than 2.0, the first with torch.compile.
bool TorchHasCompile(std::string_view version);

}  // namespace cprof
