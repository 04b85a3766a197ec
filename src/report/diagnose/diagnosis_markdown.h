// The diagnosis report as Markdown (`diagnose --format md`): a ranked table, then one section
// per finding with its evidence, how the saving was estimated, and the suggestions as code blocks.
//
//   std::string md = DiagnosisToMarkdown(diagnosis);
#pragma once

#include <string>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

std::string DiagnosisToMarkdown(const Diagnosis& d);

// "12.3 ms", "850 us", "1.25 s": a duration for people (3 significant digits).
std::string HumanDuration(int64_t ns);

}  // namespace cprof
