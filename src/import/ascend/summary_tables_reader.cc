// CSV summary tables -> metadata JSON.
#include "import/ascend/summary_tables_reader.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "import/ascend/metadata_json.h"

namespace cprof {

std::string SnakeCaseColumn(std::string_view header) {
  std::string out;
  bool sep = false;
  for (char c : header) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (sep && !out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      sep = false;
    } else {
      sep = true;
    }
  }
  return out;
}

Status ReadCsvTableAsMetadata(const std::string& path, std::string_view key,
                              std::initializer_list<std::initializer_list<std::string_view>> required,
                              AscendImportContext* ctx) {
  std::vector<std::string> keys;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();  // keeps the file's column order
  auto on_header = [&](const CsvHeader& h) -> Status {
    for (const auto& names : required) RETURN_IF_ERROR(h.Require(names).status());
    for (const auto& n : h.names()) keys.push_back(SnakeCaseColumn(n));
    return Status::Ok();
  };
  auto on_row = [&](const CsvRow& row) -> Status {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (size_t c = 0; c < keys.size(); ++c) {
      if (keys[c].empty()) continue;
      auto cell = row.Text(static_cast<int>(c));
      if (!cell) {
        obj[keys[c]] = nullptr;
      } else if (auto i = ParseCsvInt(*cell); i && cell->find_first_of(".eE") == std::string_view::npos) {
        obj[keys[c]] = *i;
      } else if (auto d = ParseCsvDouble(*cell)) {
        obj[keys[c]] = *d;
      } else {
        obj[keys[c]] = std::string(*cell);
      }
    }
    rows.push_back(std::move(obj));
    return Status::Ok();
  };
  RETURN_IF_ERROR(ctx->ForEachCsvRow(path, on_header, on_row));
  ctx->b().SetMetadataString(key, MetadataJsonText(rows));
  return Status::Ok();
}

Status ReadStepTraceTime(const std::string& path, AscendImportContext* ctx) {
  return ReadCsvTableAsMetadata(path, kAscendStepTraceKey,
                                {{"Step"}, {"Computing"}, {"Communication(Not Overlapped)"}, {"Free"}}, ctx);
}

Status ReadOpStatistic(const std::string& path, AscendImportContext* ctx) {
  return ReadCsvTableAsMetadata(path, kAscendOpStatisticKey,
                                {{"OP Type", "Op Type"}, {"Count"}, {"Total Time(us)"}}, ctx);
}

Status ReadApiStatistic(const std::string& path, AscendImportContext* ctx) {
  return ReadCsvTableAsMetadata(path, "ascend_api_statistic", {{"API Name"}, {"Count"}}, ctx);
}

Status ReadOperatorDetails(const std::string& path, AscendImportContext* ctx) {
  return ReadCsvTableAsMetadata(path, "ascend_operator_details", {{"Name"}}, ctx);
}

}  // namespace cprof
