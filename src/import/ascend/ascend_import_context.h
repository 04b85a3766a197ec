// State shared by the readers of one torch_npu / msprof result folder: the builder, the rank and
// device, and the record of what was missing or unreadable. A side file that fails to parse is
// recorded (import stat + metadata `import_problems`), never fatal: the rest still imports.
//
//   AscendImportContext ctx(builder, options);
//   ctx.Attempt("kernel_details.csv", ReadKernelDetails(path, &ctx));
//   ctx.ForEachCsvRow(path, on_header, on_row);   // bad rows are skipped and counted
//   RETURN_IF_ERROR(ctx.Finish("torch_npu"));
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/csv/csv_header.h"
#include "import/trace_reader.h"

namespace cprof {

class AscendImportContext {
 public:
  AscendImportContext(TraceBuilder* builder, const ImportOptions& options) : b_(builder), options_(options) {}

  TraceBuilder& b() { return *b_; }
  const ImportOptions& options() const { return options_; }

  // Rank and device of this result, once known (profiler_info, RANK_DEVICE_MAP, file names).
  int64_t rank = -1;
  int64_t device = -1;
  // The device to put new NPU tracks on: the device of tracks an earlier reader made, else
  // `device`, else the rank, else 0.
  int64_t DeviceForNewTracks() const;

  // Records `file` as absent (an expected file the collection config did not produce).
  void Missing(std::string_view file);
  // Records a failure to read a side file; the import goes on, unless it was a resource limit
  // (memory, decompression), which limit_status() keeps for the reader to return.
  void Problem(const Status& status);
  const Status& limit_status() const { return limit_status_; }
  // Convenience: Problem(status) unless it is OK.
  void Attempt(const Status& status) {
    if (!status.ok()) Problem(status);
  }
  const std::vector<std::string>& missing() const { return missing_; }
  const std::vector<std::string>& problems() const { return problems_; }

  // Reads a whole CSV file (within the memory limit). `on_header` maps the columns (an error
  // there fails the file); `on_row` handles one record: an error there skips the row, counted as
  // csv_bad_row with the first reason kept in import_problems. The memory limit is checked every
  // kMemoryCheckRows rows.
  Status ForEachCsvRow(const std::string& path, const std::function<Status(const CsvHeader&)>& on_header,
                       const std::function<Status(const CsvRow&)>& on_row);

  // Writes missing_files / import_problems metadata and stamps the rank on every track.
  void Finish();

 private:
  TraceBuilder* b_;
  ImportOptions options_;
  std::vector<std::string> missing_;
  std::vector<std::string> problems_;
  Status limit_status_;
};

// Interns a CSV cell as the most specific Value: integer, then number, then string.
Value CsvCellValue(TraceBuilder& b, std::string_view cell);

}  // namespace cprof
