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
#include <string_view>
#include <utility>
#include <vector>

namespace cprof::tune {

struct PrintedMetrics {
  std::map<std::string, double> values;            // every finite number, by name
  std::map<std::string, std::string> not_numbers;  // every other value, by name: "is NaN", ...
  // When no line is a JSON object: why the last line that looked like one ({...}) is not, as
  // "its last line that looks like a JSON object is not JSON (...)"; empty otherwise.
  std::string json_problem;
};

// Reads a command's stdout as it comes, in bounded memory however much it prints: the output
// is read in blocks of whole lines, and only the last JSON object line and each regex's last
// capture are kept. A line longer than kMaxLineBytes is not read.
//
//   PrintedMetricsReader reader(regexes);
//   while (read(fd, buf, n)) reader.Append({buf, n});
//   PrintedMetrics m = reader.Finish();
class PrintedMetricsReader {
 public:
  static constexpr size_t kMaxLineBytes = size_t{64} << 20;
  // `regex`: metric name -> pattern; group 1 of its last match is the value, and a match that is
  // not a finite number is in not_numbers. A capture wins over a JSON field of the same name. A
  // match does not span blocks of output (about 1 MiB of whole lines each).
  explicit PrintedMetricsReader(const std::vector<std::pair<std::string, std::regex>>& regex);
  void Append(std::string_view data);
  PrintedMetrics Finish();  // reads what is left (a last line without a newline counts)

 private:
  void ReadBlock(std::string_view block, bool last);

  const std::vector<std::pair<std::string, std::regex>>& regex_;
  std::string pending_;          // output not yet read: part of a block, or of one long line
  size_t scanned_ = 0;           // pending_ has no newline before this
  bool skipping_line_ = false;   // inside a line longer than kMaxLineBytes: up to its newline
  bool first_block_ = true;      // the next block starts the output (for ^ in a regex)
  std::string last_line_;        // the last line of the last block read
  std::string json_line_;        // the last line that is a JSON object
  std::string bad_line_;         // the last line that looked like one and is not JSON
  std::map<std::string, std::string> captures_;  // metric -> its regex's last capture
};

// The whole output at once (PrintedMetricsReader).
PrintedMetrics ParsePrintedMetrics(const std::string& out,
                                   const std::vector<std::pair<std::string, std::regex>>& regex);

}  // namespace cprof::tune
