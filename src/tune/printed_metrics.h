// The metrics a trial's command prints: the last line of stdout that is a JSON object, and
// `--regex` captures. Values that are not finite numbers are kept apart with what they are, so
// that a failed trial can say so ("objective 't' is NaN") instead of "no metrics".
//
//   PrintedMetrics m = ParsePrintedMetrics(stdout_text, regexes);
//   m.values["latency_ms"];      // finite numbers only
//   m.not_numbers["t"];          // "is NaN", "is infinite", "is a string (\"12.5\"), not a number"
//
// The JSON line is read as Python's json.dumps writes it: NaN, Infinity and -Infinity (not JSON)
// are read as those values, and so are nan/inf in any case; a number too large for a double
// (1e999) is infinite. Without that, nlohmann/json refused the whole line.
#pragma once

#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace cprof::tune {

struct PrintedMetrics {
  std::map<std::string, double> values;            // every finite number, by name
  std::map<std::string, std::string> not_numbers;  // every other value, by name: "is NaN", ...
};

// `regex`: metric name -> pattern; group 1 of its last match in `out` is the value, and a match
// that is not a finite number is in not_numbers. A capture wins over a JSON field of the same name.
PrintedMetrics ParsePrintedMetrics(const std::string& out,
                                   const std::vector<std::pair<std::string, std::regex>>& regex);

}  // namespace cprof::tune
