// Problem bookkeeping and CSV iteration for the Ascend folder readers.
#include "import/ascend/ascend_import_context.h"

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "import/ascend/metadata_json.h"
#include "import/import_memory.h"

namespace cprof {

int64_t AscendImportContext::DeviceForNewTracks() const {
  const TrackTable& t = b_->trace().tracks;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] == TrackKind::kNpuStream && t.device[i] >= 0) return t.device[i];
  }
  if (device >= 0) return device;
  if (rank >= 0) return rank;
  return 0;
}

void AscendImportContext::Missing(std::string_view file) {
  missing_.emplace_back(file);
  b_->stats().Add(ImportStat::profiler_file_missing);
}

void AscendImportContext::Problem(const Status& status) {
  if (status.ok()) return;
  if (status.code() == StatusCode::kResourceLimit && limit_status_.ok()) limit_status_ = status;
  problems_.push_back(status.message());
  b_->stats().Add(ImportStat::profiler_file_unreadable);
}

Status AscendImportContext::ForEachCsvRow(const std::string& path,
                                          const std::function<Status(const CsvHeader&)>& on_header,
                                          const std::function<Status(const CsvRow&)>& on_row) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path, options_.max_memory_bytes, options_.decompression));
  CsvReader reader(text, path);
  ASSIGN_OR_RETURN(CsvHeader header, CsvHeader::Read(&reader));
  RETURN_IF_ERROR(on_header(header));
  bool reported = false;
  for (uint64_t rows = 0;; ++rows) {
    if (rows % kMemoryCheckRows == 0) RETURN_IF_ERROR(CheckImportMemory(b_->trace(), options_, path));
    ASSIGN_OR_RETURN(bool more, reader.Next());
    if (!more) break;
    CsvRow row(reader, header);
    Status st = on_row(row);
    if (!st.ok()) {
      b_->stats().Add(ImportStat::csv_bad_row);
      if (!reported) problems_.push_back(st.message() + " (row skipped)");
      reported = true;
    }
  }
  return Status::Ok();
}

void AscendImportContext::Finish() {
  if (!missing_.empty()) {
    std::string list;
    for (const auto& m : missing_) list += (list.empty() ? "" : ", ") + m;
    b_->SetMetadataString("missing_files", list);
  }
  if (!problems_.empty()) b_->SetMetadataString("import_problems", MetadataJsonText(nlohmann::json(problems_)));
  if (rank >= 0) {
    b_->SetMetadata(meta::kRank, Value::Int(rank));
    TrackTable& t = b_->tracks();
    for (size_t i = 0; i < t.size(); ++i) t.rank[i] = rank;
  }
}

Value CsvCellValue(TraceBuilder& b, std::string_view cell) {
  if (auto i = ParseCsvInt(cell); i && cell.find_first_of(".eE") == std::string_view::npos) return Value::Int(*i);
  if (auto d = ParseCsvDouble(cell)) return Value::Double(*d);
  return Value::String(b.Intern(cell));
}

}  // namespace cprof
