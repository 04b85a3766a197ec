// Test helper for golden tests: reads a small CSV with a header row into name -> column maps.
// Handles CRLF line ends; no quoted fields (the golden tables have none).
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace cprof::testing {

using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::string> SplitCsvLine(std::string line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

// Rows keyed by header name; empty if the file cannot be read.
inline std::vector<CsvRow> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<CsvRow> rows;
  std::string line;
  if (!std::getline(in, line)) return rows;
  std::vector<std::string> header = SplitCsvLine(line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells = SplitCsvLine(line);
    if (cells.empty()) continue;
    CsvRow row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace cprof::testing
