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

}  // namespace

PrintedMetrics ParsePrintedMetrics(const std::string& out,
                                   const std::vector<std::pair<std::string, std::regex>>& regex) {
  PrintedMetrics m;
  // The last line that is a JSON object.
  size_t end = out.size();
  while (end > 0) {
    size_t start = out.rfind('\n', end - 1);
    size_t from = start == std::string::npos ? 0 : start + 1;
    std::string line = out.substr(from, end - from);
    size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    if (a != std::string::npos && line[a] == '{' && line[b] == '}') {
      auto j = nlohmann::json::parse(MarkNonFinite(line.substr(a, b - a + 1)), nullptr, false);
      if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
          if (v.is_number() && std::isfinite(v.get<double>())) m.values[k] = v.get<double>();
          else m.not_numbers[k] = NotANumber(v);
        }
        break;
      }
    }
    if (start == std::string::npos) break;
    end = start;
  }
  for (const auto& [name, re] : regex) {
    std::string last;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator(); ++it)
      if (it->size() > 1) last = (*it)[1].str();
    if (!last.empty()) AddCapture(name, last, m);
  }
  return m;
}

}  // namespace cprof::tune
