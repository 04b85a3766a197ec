// Parsing and applying --op-map rules.
#include "analysis/compare/op_map.h"

namespace cprof {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

StatusOr<OpMap> OpMap::Parse(std::string_view text, const std::string& source) {
  OpMap map;
  int line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    // A '#' starts a comment unless escaped in the pattern as "\#".
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '#' && (i == 0 || line[i - 1] != '\\')) {
        line = line.substr(0, i);
        break;
      }
    }
    line = Trim(line);
    if (line.empty()) continue;
    const size_t arrow = line.rfind("=>");
    if (arrow == std::string_view::npos)
      return InvalidInput("{}:{}: expected 'PATTERN => NAME', got '{}'", source, line_no, line);
    Rule rule;
    std::string_view pattern = Trim(line.substr(0, arrow));
    rule.name = std::string(Trim(line.substr(arrow + 2)));
    if (pattern.starts_with("baseline:")) {
      rule.target = false;
      pattern = Trim(pattern.substr(9));
    } else if (pattern.starts_with("target:")) {
      rule.baseline = false;
      pattern = Trim(pattern.substr(7));
    }
    if (pattern.empty() || rule.name.empty())
      return InvalidInput("{}:{}: empty pattern or name in '{}'", source, line_no, line);
    rule.pattern = std::string(pattern);
    try {
      rule.regex = std::regex(rule.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      return InvalidInput("{}:{}: bad regular expression '{}': {}", source, line_no, rule.pattern, e.what());
    }
    map.rules_.push_back(std::move(rule));
  }
  return map;
}

std::string OpMap::Apply(Side side, std::string_view name) const {
  for (const Rule& r : rules_) {
    if (side == Side::kBaseline ? !r.baseline : !r.target) continue;
    if (std::regex_match(name.begin(), name.end(), r.regex)) return r.name;
  }
  return std::string(name);
}

}  // namespace cprof
