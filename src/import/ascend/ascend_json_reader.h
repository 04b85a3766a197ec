// Reads the JSON side files of a torch_npu result (the one translation unit here that includes
// simdjson, which these files may need: communication_matrix.json of a large job runs to 100s of MB).
//
//   communication.json        -> the HCCL op slices get the op's time breakdown and bandwidth per
//                                transport as args (`comm.*`, below); an op with no slice in the
//                                trace becomes one, on its group's communication track.
//   communication_matrix.json -> metadata `communication_matrix`: one object per link and op.
//   profiler_info_N.json      -> rank, clock sync and collection config (metadata).
//   profiler_metadata.json    -> environment variables and the rest (metadata).
//
// The communication records' model form is in comm_records.h.
#pragma once

#include <string>
#include <string_view>

#include "import/ascend/ascend_import_context.h"
#include "import/ascend/device_task_index.h"

namespace cprof {

Status ReadCommunicationJson(const std::string& path, AscendImportContext* ctx, DeviceTaskIndex* index);
Status ReadCommunicationMatrixJson(const std::string& path, AscendImportContext* ctx);
Status ReadProfilerInfoJson(const std::string& path, AscendImportContext* ctx);
Status ReadProfilerMetadataJson(const std::string& path, AscendImportContext* ctx);

}  // namespace cprof
