// CSV records as the profilers we import write them (RFC 4180 plus their quirks): quoted fields
// may hold delimiters, doubled quotes and newlines (torch_npu call stacks); rows end in LF or CRLF.
//
//   CsvReader r(text, "kernel_details.csv");
//   ASSIGN_OR_RETURN(CsvHeader header, CsvHeader::Read(&r));   // csv_header.h
//   ASSIGN_OR_RETURN(int start, header.Require({"Start Time(us)", "Start Time"}));
//   for (;;) {
//     ASSIGN_OR_RETURN(bool more, r.Next());
//     if (!more) break;
//     CsvRow row(r, header);
//     ASSIGN_OR_RETURN(std::optional<int64_t> ts, row.MicrosNs(start));
//   }
//
// The reader does not own `text`; fields are views into it, or into the reader's scratch buffer
// for fields with doubled quotes (valid until the next Next()). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace cprof {

class CsvReader {
 public:
  CsvReader(std::string_view text, std::string path, char delimiter = ',');

  // Reads the next record; false at the end of the text. Blank lines are skipped. An
  // unterminated quote is an error naming the file, the line and the column where it opened.
  StatusOr<bool> Next();

  size_t size() const { return fields_.size(); }
  // The field's text with CSV quoting undone (no other cleanup); empty past the last field.
  std::string_view field(size_t i) const { return i < fields_.size() ? fields_[i] : std::string_view(); }
  // 1-based line where the current record starts.
  int64_t line() const { return record_line_; }
  const std::string& path() const { return path_; }

 private:
  std::string_view text_;
  std::string path_;
  char delim_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  size_t line_start_ = 0;  // offset of the current line's first byte (for error columns)
  int64_t record_line_ = 0;
  std::vector<std::string_view> fields_;
  std::vector<std::string> scratch_;  // unescaped fields of the current record
};

}  // namespace cprof
