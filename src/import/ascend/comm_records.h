// The model form of communication analysis records, shared by every reader that meets them
// (communication.json, analysis.db, msprof's communication exports), so analyses read one shape.
//
// An op (CommOpRecord) becomes args on its HCCL op slice (matched by name and start; made if the
// trace has none, on the device's "Communication group <g>" track). Keys, times in ns:
//   comm.step ("step50"), comm.kind ("collective"/"p2p"), comm.group, comm.elapse_time_ns,
//   comm.transit_time_ns, comm.wait_time_ns, comm.synchronization_time_ns, comm.idle_time_ns,
//   comm.wait_time_ratio, comm.synchronization_time_ratio, and per transport T with traffic:
//   comm.T.transit_size_mb, comm.T.transit_time_ns, comm.T.bandwidth_gbps, comm.T.large_packet_ratio.
// Links (CommLinkRecord) go to metadata `communication_matrix`: a JSON array of objects
//   {step, kind, op, group, src_rank, dst_rank, transport, transit_size_mb, transit_time_ms,
//    bandwidth_gbps, op_name}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "import/ascend/ascend_import_context.h"
#include "import/ascend/device_task_index.h"

namespace cprof {

inline constexpr std::string_view kCommunicationMatrixKey = "communication_matrix";
inline constexpr std::string_view kCommElapseArg = "comm.elapse_time_ns";

struct CommOpRecord {
  std::string step;
  std::string kind;   // "collective" or "p2p"
  std::string name;   // op name, e.g. hcom_allReduce__586_0_1
  std::string group;  // communication group (the part after '@'), may be empty
  int64_t start_ns = 0;
  int64_t elapse_ns = 0, transit_ns = 0, wait_ns = 0, sync_ns = 0, idle_ns = 0;
  double wait_ratio = 0, sync_ratio = 0;
  struct Transport {
    std::string type;
    double size_mb = 0;
    int64_t time_ns = 0;
    double bandwidth_gbps = 0;
    double large_packet_ratio = 0;
  };
  std::vector<Transport> transports;
};

struct CommLinkRecord {
  std::string step, kind, op, group, transport, op_name;
  int64_t src_rank = -1, dst_rank = -1;
  double transit_size_mb = 0, transit_time_ms = 0, bandwidth_gbps = 0;
};

// Gives `op`'s breakdown to its slice (same name, start within `tolerance_ns`), or makes one.
void AddCommOp(const CommOpRecord& op, AscendImportContext* ctx, DeviceTaskIndex* index,
               int64_t tolerance_ns = 2000);

// Stores the links as metadata `communication_matrix`.
void SetCommMatrix(const std::vector<CommLinkRecord>& links, TraceBuilder* b);

// Splits "hcom_allReduce__586_0_1@17522688603477080586" into name and group.
void SplitOpKey(std::string_view key, std::string* name, std::string* group);

}  // namespace cprof
