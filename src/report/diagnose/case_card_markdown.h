// A case card (analysis/diagnose/case_card.h) as Markdown with YAML front matter, and back.
//
//   std::string md = CaseCardToMarkdown(card, cli::kSchemaVersion);
//   ASSIGN_OR_RETURN(CaseCard back, ParseCaseCard(md, "cases/layout_conversion-1a2b3c4d.md"));
//
// Front matter (between `---` lines): schema_version, kind ("case_card"), id, title, categories
// [ids, primary first], device, framework, trace, content_hash, fingerprint ("0x" + 16 hex),
// key_metrics {"<category>.<metric>": value}, top_ops [names], measured {metric, unit, before,
// after, change_pct, ci_low_pct, ci_high_pct, p_value, verdict, before_path, after_path} (only
// with a measurement). Body: sections Problem, Root cause, Fix, Measured gain, Where it applies,
// Risks; the reader takes them back by their headings. kInvalidInput naming `source` when the
// front matter is missing or malformed.
#pragma once

#include <string>

#include "analysis/diagnose/case_card.h"
#include "base/status.h"

namespace cprof {

std::string CaseCardToMarkdown(const CaseCard& card, int schema_version);
StatusOr<CaseCard> ParseCaseCard(const std::string& text, const std::string& source);

}  // namespace cprof
