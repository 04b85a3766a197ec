// The case library: a folder of case cards (case_card_markdown.h), one `<id>.md` file per card.
// Default folder: $CPROF_CASE_LIBRARY, else ~/.cann-profiler/cases.
//
//   ASSIGN_OR_RETURN(std::string path, SaveCaseCard(card, DefaultCaseLibrary()));
//   RETURN_IF_ERROR(CiteSimilarCases("~/.cann-profiler/cases", &diagnosis));   // diagnose --case_library
//
// CiteSimilarCases matches every finding against the library (case_match.h, similarity >= 0.5)
// and cites each match twice: a note on the diagnosis ("F1 resembles case <id> ...") and, on the
// finding, a suggestion with the case's fix (kind "" with the card's path as the snippet), so the
// report, the plan and the performance map all show it. Cards that do not parse are skipped, each
// with a note. kNotFound naming the folder when it does not exist.
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnose/case_card.h"
#include "analysis/diagnose/diagnose.h"
#include "base/status.h"

namespace cprof {

std::string DefaultCaseLibrary();

// Writes `<library>/<card.id>.md` (creating the folder), atomically; returns the path.
StatusOr<std::string> SaveCaseCard(const CaseCard& card, const std::string& library, int schema_version);

// Every card in the folder (sorted by file name), each with `path` set; unreadable ones are
// reported in `skipped` ("path: why").
StatusOr<std::vector<CaseCard>> LoadCaseLibrary(const std::string& library, std::vector<std::string>* skipped);

Status CiteSimilarCases(const std::string& library, Diagnosis* d);

}  // namespace cprof
