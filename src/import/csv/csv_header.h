// Header and typed cell access for CsvReader records: columns found by name (with the aliases
// different tool versions write), cells cleaned of the Ascend quirks, numbers parsed exactly,
// and errors that name the file, the line, the column and its header.
//
//   ASSIGN_OR_RETURN(CsvHeader header, CsvHeader::Read(&reader));
//   ASSIGN_OR_RETURN(int dim, header.Require({"Block Dim", "Block Num"}));
//   CsvRow row(reader, header);
//   ASSIGN_OR_RETURN(std::optional<int64_t> v, row.Int(dim));
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "import/csv/csv_reader.h"

namespace cprof {

// Cleans one cell the way the Ascend tools mean it: trims spaces, TABs and CR at both ends
// (torch_npu appends a TAB to timestamps), removes one more pair of wrapping quotes
// (`"""32,3,224,224"""` reads as `"32,3,224,224"`, meaning `32,3,224,224`), and maps the
// missing-value spellings (empty, N/A, NA, None, nan) to nullopt.
std::optional<std::string_view> CleanCsvCell(std::string_view raw);

// The header row: column index by name, with aliases for the variants different tool versions
// write. Names compare after trimming and case-insensitively.
class CsvHeader {
 public:
  static StatusOr<CsvHeader> Read(CsvReader* reader);
  explicit CsvHeader(std::vector<std::string> names, std::string path = {});

  // Index of the first of `names` present, or -1.
  int Find(std::initializer_list<std::string_view> names) const;
  // Same, but a missing column is an error naming the file and every spelling tried.
  StatusOr<int> Require(std::initializer_list<std::string_view> names) const;
  const std::vector<std::string>& names() const { return names_; }
  const std::string& path() const { return path_; }

 private:
  std::vector<std::string> names_;
  std::string path_;
};

// Typed access to the current record. Errors name the file, line, column number and header.
class CsvRow {
 public:
  CsvRow(const CsvReader& reader, const CsvHeader& header) : r_(reader), h_(header) {}

  // The cleaned cell (see CleanCsvCell); nullopt when missing or when `col` < 0.
  std::optional<std::string_view> Text(int col) const;
  StatusOr<std::optional<double>> Double(int col) const;
  StatusOr<std::optional<int64_t>> Int(int col) const;
  // A decimal number of microseconds, parsed exactly into ns.
  StatusOr<std::optional<int64_t>> MicrosNs(int col) const;
  // A decimal number in units of 10^scale_exp ns (6: ms, 0: ns), parsed exactly.
  StatusOr<std::optional<int64_t>> ScaledNs(int col, int scale_exp) const;

  Status BadCell(int col, std::string_view what) const;

 private:
  const CsvReader& r_;
  const CsvHeader& h_;
};

// Parses a plain decimal or scientific number; nullopt if `s` is not entirely a number.
std::optional<double> ParseCsvDouble(std::string_view s);
std::optional<int64_t> ParseCsvInt(std::string_view s);

}  // namespace cprof
