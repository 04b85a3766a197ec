// Column lookup by name and typed, exact cell parsing.
#include "import/csv/csv_header.h"

#include <charconv>
#include <cmath>

#include "base/time_units.h"

namespace cprof {
namespace {

bool IsTrim(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsTrim(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsTrim(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> CleanCsvCell(std::string_view raw) {
  std::string_view s = Trim(raw);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = Trim(s.substr(1, s.size() - 2));
  if (s.empty() || s == "N/A" || s == "NA" || s == "n/a" || s == "None" || s == "nan" || s == "NaN") {
    return std::nullopt;
  }
  return s;
}

std::optional<double> ParseCsvDouble(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseCsvInt(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && p == s.data() + s.size()) return v;
  // Some writers print integral columns as floats ("32.0").
  if (auto d = ParseCsvDouble(s); d && *d == std::floor(*d) && std::fabs(*d) < 9.0e18) {
    return static_cast<int64_t>(*d);
  }
  return std::nullopt;
}

CsvHeader::CsvHeader(std::vector<std::string> names, std::string path)
    : names_(std::move(names)), path_(std::move(path)) {}

StatusOr<CsvHeader> CsvHeader::Read(CsvReader* reader) {
  ASSIGN_OR_RETURN(bool any, reader->Next());
  if (!any) return InvalidInput("{}: empty CSV file (no header row)", reader->path());
  std::vector<std::string> names;
  names.reserve(reader->size());
  for (size_t i = 0; i < reader->size(); ++i) names.emplace_back(Trim(reader->field(i)));
  return CsvHeader(std::move(names), reader->path());
}

int CsvHeader::Find(std::initializer_list<std::string_view> names) const {
  for (std::string_view want : names) {
    for (size_t i = 0; i < names_.size(); ++i) {
      if (EqualsNoCase(names_[i], Trim(want))) return static_cast<int>(i);
    }
  }
  return -1;
}

StatusOr<int> CsvHeader::Require(std::initializer_list<std::string_view> names) const {
  int col = Find(names);
  if (col >= 0) return col;
  std::string tried;
  for (std::string_view n : names) {
    if (!tried.empty()) tried += "', '";
    tried += n;
  }
  return InvalidInput("{}: line 1: no column '{}' in the header (an unknown header variant; tried '{}')",
                      path_, *names.begin(), tried);
}

std::optional<std::string_view> CsvRow::Text(int col) const {
  if (col < 0) return std::nullopt;
  return CleanCsvCell(r_.field(static_cast<size_t>(col)));
}

Status CsvRow::BadCell(int col, std::string_view what) const {
  std::string_view name = col >= 0 && static_cast<size_t>(col) < h_.names().size()
                              ? std::string_view(h_.names()[col])
                              : std::string_view("?");
  std::string_view raw = r_.field(static_cast<size_t>(std::max(col, 0)));
  if (raw.size() > 40) raw = raw.substr(0, 40);
  return InvalidInput("{}: line {}, column {} ('{}'): {}, got '{}'", r_.path(), r_.line(), col + 1, name, what,
                      raw);
}

StatusOr<std::optional<double>> CsvRow::Double(int col) const {
  auto t = Text(col);
  if (!t) return std::optional<double>();
  auto v = ParseCsvDouble(*t);
  if (!v) return BadCell(col, "expected a number");
  return v;
}

StatusOr<std::optional<int64_t>> CsvRow::Int(int col) const {
  auto t = Text(col);
  if (!t) return std::optional<int64_t>();
  auto v = ParseCsvInt(*t);
  if (!v) return BadCell(col, "expected an integer");
  return v;
}

StatusOr<std::optional<int64_t>> CsvRow::ScaledNs(int col, int scale_exp) const {
  auto t = Text(col);
  if (!t) return std::optional<int64_t>();
  if (auto v = ParseDecimalScaledToNs(*t, scale_exp)) return std::optional<int64_t>(*v);
  // Python float repr may use an exponent ("2e-05"): small values only, where double is exact
  // enough at ns resolution.
  if (auto d = ParseCsvDouble(*t); d && std::fabs(*d) < 1e9) {
    return std::optional<int64_t>(static_cast<int64_t>(std::llround(*d * std::pow(10.0, scale_exp))));
  }
  return BadCell(col, "expected a decimal time");
}

StatusOr<std::optional<int64_t>> CsvRow::MicrosNs(int col) const { return ScaledNs(col, 3); }

}  // namespace cprof
