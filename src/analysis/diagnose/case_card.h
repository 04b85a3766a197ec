// A case card: one solved performance problem (problem, root cause, fix, measured gain, where it
// applies, risks), kept in a case library folder so later diagnoses can cite similar past cases.
// Built from a diagnosis (`case-card`), written as Markdown with YAML front matter
// (report/diagnose/case_card_markdown.h), matched against new findings by case_match.h.
//
//   CaseCard card = BuildCaseCard(diagnosis, "switched to channels_last", measured);
//   // card.categories {"layout_conversion", ...}, card.key_metrics {"layout_conversion.ratio": 0.31}
//
// Key metrics are the planned findings' metrics keyed "<category>.<metric>", plus
// "<category>.saving_fraction" (saving over the analysed span); top_ops are the names of the
// primary finding's evidence events. The fingerprint hashes the sorted categories, the device and
// the top op names, so the same problem in the same workload has the same fingerprint.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

// A before/after measurement, as validate computes it (analysis/compare/validation.h).
struct MeasuredGain {
  std::string metric;          // "step_time"
  std::string unit;            // "ns"
  double before = 0;           // the statistic of each side (median for step_time)
  double after = 0;
  double change_pct = 0;       // 100 * (after / before - 1)
  double ci_low_pct = 0;       // the change's interval
  double ci_high_pct = 0;
  double p_value = 1;          // Holm-adjusted
  std::string verdict;         // improved | regressed | unchanged
  std::string before_path;
  std::string after_path;
};

struct CaseCard {
  std::string id;              // "<primary category>-<first 8 hex digits of the fingerprint>"
  std::string title;           // the primary finding's title
  std::vector<std::string> categories;  // primary first
  std::string device;
  std::string framework;
  std::string trace;
  uint64_t content_hash = 0;
  uint64_t fingerprint = 0;
  std::map<std::string, double> key_metrics;
  std::vector<std::string> top_ops;
  std::string problem;         // Markdown paragraphs
  std::string root_cause;
  std::string fix;
  std::string applies_to;
  std::string risks;
  std::optional<MeasuredGain> measured;
  std::string path;            // where it was read from (library loads), else empty
};

// The card for one finding of a diagnosis (with the other findings at >= 0.5 confidence as context). `solution`
// is what was done (free text); empty means the suggestions of the top finding are the fix.
// kInvalidInput-free: a diagnosis without findings gives a card whose problem says so.
// `primary` picks the finding the card is about (default the top one, F1); kNotFound-free: an
// index past the findings falls back to the top one.
CaseCard BuildCaseCard(const Diagnosis& d, const std::string& solution, const std::optional<MeasuredGain>& measured,
                       size_t primary = 0);

// FNV-1a over the sorted categories, the device and the top op names.
uint64_t CaseFingerprint(std::vector<std::string> categories, const std::string& device,
                         const std::vector<std::string>& top_ops);

}  // namespace cprof
