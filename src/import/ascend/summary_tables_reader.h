// Reads torch_npu's summary tables into metadata, one JSON array of row objects each, with the
// columns' snake_case names as keys and the values as written (µs where the file says us):
//   step_trace_time.csv  -> `ascend_step_trace`     (step, computing, communication_not_overlapped,
//                           overlapped, communication, free, stage, bubble, ..., preparing)
//   op_statistic.csv     -> `ascend_op_statistic`
//   api_statistic.csv    -> `ascend_api_statistic`
//   operator_details.csv -> `ascend_operator_details`
// Tables, not events: they summarize the run the way torch_npu computed it, so `summary` can show
// them and the cross-checks can compare them with what the trace itself says.
#pragma once

#include <string>
#include <string_view>

#include "import/ascend/ascend_import_context.h"

namespace cprof {

inline constexpr std::string_view kAscendStepTraceKey = "ascend_step_trace";
inline constexpr std::string_view kAscendOpStatisticKey = "ascend_op_statistic";

// "Communication(Not Overlapped)" -> "communication_not_overlapped"; "Total Time(us)" -> "total_time_us".
std::string SnakeCaseColumn(std::string_view header);

// Reads a CSV table into the metadata key `key`. `required` lists columns (with aliases) the
// table must have; a missing one is an error naming it.
Status ReadCsvTableAsMetadata(const std::string& path, std::string_view key,
                              std::initializer_list<std::initializer_list<std::string_view>> required,
                              AscendImportContext* ctx);

Status ReadStepTraceTime(const std::string& path, AscendImportContext* ctx);
Status ReadOpStatistic(const std::string& path, AscendImportContext* ctx);
Status ReadApiStatistic(const std::string& path, AscendImportContext* ctx);
Status ReadOperatorDetails(const std::string& path, AscendImportContext* ctx);

}  // namespace cprof
