// Reading a command's printed metrics, with Python's non-finite JSON tokens.
#include "tune/printed_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

namespace cprof::tune {
namespace {

// Non-finite tokens become strings starting with this byte (it cannot start a printed string:
// JSON escapes control characters), which the reader turns back into values.
constexpr char kMark = '\x01';

// What a token that is not a JSON number stands for, when it is one of Python's NaN, Infinity,
// -Infinity (or nan/inf in any case, as C's printf writes them).
std::optional<double> NonFiniteToken(std::string t) {
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool negative = !t.empty() && t[0] == '-';
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.erase(0, 1);
  if (t == "nan") return std::nan("");
  if (t == "inf" || t == "infinity") return negative ? -INFINITY : INFINITY;
  return std::nullopt;
}

// `line` with every non-finite number outside strings (NaN, Infinity, 1e999) replaced by a
// marked string ("\u0001nan", "\u0001inf", "\u0001-inf").
std::string MarkNonFinite(const std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (c == '"') {  // copy the string whole, escapes included
      size_t j = i + 1;
      while (j < line.size() && line[j] != '"') j += line[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, line.size());
      out.append(line, i, j - i);
      i = j;
      continue;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+') {
      size_t j = i;
      while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '-' ||
                                 line[j] == '+' || line[j] == '.'))
        ++j;
      const std::string token = line.substr(i, j - i);
      std::optional<double> v = NonFiniteToken(token);
      if (!v && (std::isdigit(static_cast<unsigned char>(c)) || c == '-')) {
        char* end = nullptr;
        const double d = std::strtod(token.c_str(), &end);
        if (end == token.c_str() + token.size() && std::isinf(d)) v = d;  // 1e999
      }
      if (v) out += std::isnan(*v) ? "\"\\u0001nan\"" : *v > 0 ? "\"\\u0001inf\"" : "\"\\u0001-inf\"";
      else out += token;
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// What a printed value that is not a finite number is, as "objective 't' <this>" reads.
std::string NotANumber(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (!s.empty() && s[0] == kMark) return s == "\x01nan" ? "is NaN" : "is infinite";
    return fmt::format("is a string (\"{}\"), not a number", s.size() > 40 ? s.substr(0, 40) + "..." : s);
  }
  if (v.is_number()) return "is infinite";
  if (v.is_null()) return "is null, not a number";
  if (v.is_boolean()) return fmt::format("is a boolean ({}), not a number", v.dump());
  return fmt::format("is an {}, not a number", v.type_name());  // object, array
}

// A regex capture's text as a value: a finite number, or what it is instead.
void AddCapture(const std::string& name, const std::string& text, PrintedMetrics& m) {
  char* stop = nullptr;
  const double v = std::strtod(text.c_str(), &stop);
  m.values.erase(name);
  m.not_numbers.erase(name);
  if (stop != text.c_str() && std::isfinite(v)) m.values[name] = v;
  else if (stop != text.c_str()) m.not_numbers[name] = std::isnan(v) ? "is NaN" : "is infinite";
  else m.not_numbers[name] = fmt::format("is \"{}\", not a number", text.substr(0, 40));
}


// Whether `line` (spaces, a byte-order mark and \r trimmed) is {...}; `object` gets the trimmed text.
bool LooksLikeObject(std::string_view line, std::string_view* object) {
  if (line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  // Progress text rewritten with \r (`step 3/3\r{"t": 4}`): what a terminal shows is after the
  // last \r inside the line.
  if (const size_t end = line.find_last_not_of(" \t\r"); end != std::string_view::npos)
    if (const size_t cr = line.rfind('\r', end); cr != std::string_view::npos) line.remove_prefix(cr + 1);
  const size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
  if (a == std::string_view::npos || line[a] != '{' || line[b] != '}') return false;
  *object = line.substr(a, b - a + 1);
  return true;
}

// The object a line holds; discarded with the reason when it is not JSON.
nlohmann::json ParseObject(std::string_view text, std::string* problem) {
  try {
    nlohmann::json j = nlohmann::json::parse(MarkNonFinite(std::string(text)));
    if (j.is_object()) return j;
    *problem = "not an object";
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at ..."
    if (const size_t close = what.find("] "); what.starts_with("[json.") && close != std::string::npos)
      what.erase(0, close + 2);
    *problem = what.size() > 200 ? what.substr(0, 200) + "..." : what;
  }
  return nlohmann::json();
}

constexpr size_t kBlockBytes = size_t{1} << 20;

}  // namespace

PrintedMetricsReader::PrintedMetricsReader(const std::vector<std::pair<std::string, std::regex>>& regex)
    : regex_(regex) {}

void PrintedMetricsReader::Append(std::string_view data) {
  while (!data.empty()) {
    if (skipping_line_) {
      const size_t nl = data.find('\n');
      if (nl == std::string_view::npos) return;
      skipping_line_ = false;
      data.remove_prefix(nl + 1);
      continue;
    }
    pending_.append(data);
    data = {};
    if (pending_.size() < kBlockBytes) return;
    // pending_ held no newline before `scanned_`: search only what came since (a long line read
    // 64 KiB at a time was searched whole at every read).
    const size_t nl = std::string_view(pending_).substr(scanned_).rfind('\n');
    if (nl != std::string_view::npos) {
      const size_t last_nl = scanned_ + nl;
      const std::string_view block = std::string_view(pending_).substr(0, last_nl + 1);
      ReadBlock(block, /*last=*/false);
      // Kept for a `$` at the very end, should the output end here.
      const size_t line = last_nl == 0 ? std::string_view::npos : block.rfind('\n', last_nl - 1);
      last_line_.assign(block.substr(line == std::string_view::npos ? 0 : line + 1));
      pending_.erase(0, last_nl + 1);
    }
    scanned_ = pending_.size();
    if (pending_.size() > kMaxLineBytes) {  // one line, too long to keep: skip to its end
      pending_.clear();
      pending_.shrink_to_fit();
      scanned_ = 0;
      skipping_line_ = true;
    }
  }
}

void PrintedMetricsReader::ReadBlock(std::string_view block, bool last) {
  // The last line of the block that is a JSON object, from the end; a later block's replaces it.
  // Lines that only look like one (a Python dict printed with single quotes) are checked without
  // building them, and the last is kept to say why it is not JSON.
  size_t end = block.size();
  bool bad_seen = false;
  while (end > 0) {
    const size_t start = block.rfind('\n', end - 1);
    const size_t from = start == std::string_view::npos ? 0 : start + 1;
    std::string_view object;
    if (end - from <= kMaxLineBytes && LooksLikeObject(block.substr(from, end - from), &object)) {
      if (nlohmann::json::accept(MarkNonFinite(std::string(object)))) {
        json_line_.assign(object);
        break;
      }
      if (!bad_seen) bad_line_.assign(object);
      bad_seen = true;
    }
    if (start == std::string_view::npos) break;
    end = start;
  }
  // ^ and $ match at the start and end of all the output, as when it was searched at once.
  auto flags = std::regex_constants::match_default;
  if (!first_block_) flags |= std::regex_constants::match_not_bol;
  if (!last) flags |= std::regex_constants::match_not_eol;
  first_block_ = false;
  for (const auto& [name, re] : regex_) {
    std::string capture;
    for (auto it = std::cregex_iterator(block.data(), block.data() + block.size(), re, flags);
         it != std::cregex_iterator(); ++it)
      if (it->size() > 1) capture = (*it)[1].str();
    if (!capture.empty()) captures_[name] = std::move(capture);
  }
}

PrintedMetrics PrintedMetricsReader::Finish() {
  // The end of the output: what is pending, or the last line read, again, for a `$` there.
  if (!skipping_line_) ReadBlock(pending_.empty() ? last_line_ : pending_, /*last=*/true);
  pending_.clear();
  PrintedMetrics m;
  std::string problem;
  if (!json_line_.empty()) {
    const nlohmann::json object = ParseObject(json_line_, &problem);
    for (const auto& [k, v] : object.items()) {
      if (v.is_number() && std::isfinite(v.get<double>())) m.values[k] = v.get<double>();
      else m.not_numbers[k] = NotANumber(v);
    }
  } else if (!bad_line_.empty()) {
    ParseObject(bad_line_, &problem);
    m.json_problem = "its last line that looks like a JSON object is not JSON (" + problem + ")";
  }
  for (const auto& [name, text] : captures_) AddCapture(name, text, m);
  return m;
}

PrintedMetrics ParsePrintedMetrics(const std::string& out,
                                   const std::vector<std::pair<std::string, std::regex>>& regex) {
  PrintedMetricsReader reader(regex);
  reader.Append(out);
  return reader.Finish();
}

}  // namespace cprof::tune
