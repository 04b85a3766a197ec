// tune's progress lines (TuneProgressPrinter) on hand-made trials.
#include "cli/tune_summary.h"

#include <gtest/gtest.h>

#include <sstream>

namespace cprof::cli {
namespace {

using tune::Progress;
using tune::TrialState;
using tune::TrialSummary;

// A configuration stopped early by racing says so on its line: only the JSON's reason did.
TEST(TuneProgressTest, ACompleteTrialsLineSaysWhyItHasFewerRepeats) {
  std::ostringstream err;
  tune::ProgressFn print = TuneProgressPrinter(err, {{"latency_ms", false}});
  TrialSummary t;
  t.number = 4;
  t.state = TrialState::kComplete;
  t.metrics["latency_ms"] = 12.5;
  t.params["x"] = "3";
  t.reason = "raced out after 2 of 3 repeats";
  Progress p;
  p.evaluations = 5;
  p.budget = 20;
  p.trial = &t;
  p.best_value = 10.0;
  print(p);
  t.reason.clear();
  print(p);
  std::istringstream lines(err.str());
  std::string raced, full;
  std::getline(lines, raced);
  std::getline(lines, full);
  EXPECT_NE(raced.find("[5/20] trial 4 latency_ms=12.5 (raced out after 2 of 3 repeats) | best 10"), std::string::npos)
      << raced;
  EXPECT_NE(full.find("[5/20] trial 4 latency_ms=12.5 | best 10"), std::string::npos) << full;
}

}  // namespace
}  // namespace cprof::cli
