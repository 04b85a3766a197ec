// The standard change for each finding category on each device: what `generate-plan` adds when a
// finding's own suggestions are thin (no snippet), so every plan step says concretely what to edit,
// set or run on the framework and device the trace came from.
//
//   for (const Suggestion& s : DefaultChanges(Category::kLaunchOverhead, "npu")) plan(s);
//   // {kind "env", snippet "export TASK_QUEUE_ENABLE=2"}, {kind "code", "torch_npu ... graph mode"}
//
// `device` is "cpu", "gpu" or "npu" (a finding's `device`); unknown devices get the CPU/generic
// advice. The snippets are PyTorch (eager, torch_npu on Ascend), the framework every importer
// and the collector handle today.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/diagnose/finding.h"

namespace cprof {

std::vector<Suggestion> DefaultChanges(Category c, std::string_view device);

// Suggestions whose snippet calls torch.compile, when the trace's PyTorch (`torch_version`, empty
// when unknown) predates it, get a sentence saying so: on 1.13 the snippet fails as written. One
// that also gives the TorchScript way (torch.jit.script) is left as it is.
void NoteTorchCompileNeeds(std::vector<Suggestion>& suggestions, std::string_view torch_version);

}  // namespace cprof
