// ascend_pytorch_profiler_N.db (analysis.db: analysis_db_reader.cc).
#include "import/ascend/ascend_db_reader.h"

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "import/ascend/analysis_db_reader.h"
#include "import/ascend/ascend_cross_checks.h"
#include "import/ascend/comm_records.h"
#include "import/ascend/device_task_index.h"
#include "import/ascend/metadata_json.h"
#include "import/ascend/summary_tables_reader.h"
#include "import/import_memory.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {
namespace {

constexpr double kMB = 1024.0 * 1024.0;

class AscendDbImport {
 public:
  AscendDbImport(const SqliteDb& db, AscendImportContext* ctx) : db_(db), ctx_(*ctx), b_(ctx->b()) {}

  Status Run() {
    RETURN_IF_ERROR(LoadStrings());
    RETURN_IF_ERROR(ReadRankAndMeta());
    if (!ctx_.options().summary_tables_only) {
      RETURN_IF_ERROR(ReadTasks());
      RETURN_IF_ERROR(ReadHostApis());
      RETURN_IF_ERROR(ReadOverlap());
      ctx_.Attempt(ReadMemory());
    }
    return ReadCommOps();
  }

 private:
  // The next row of `st`; every kMemoryCheckRows rows also the memory limit.
  StatusOr<bool> Step(SqliteStatement& st) {
    if (++rows_ % kMemoryCheckRows == 0) {
      RETURN_IF_ERROR(CheckImportMemory(b_.trace(), ctx_.options(), db_.path()));
    }
    return st.Step();
  }

  Status LoadStrings() {
    if (!db_.HasTable("STRING_IDS")) return Status::Ok();
    ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("STRING_IDS", {"id", "value"}));
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      strings_[st.Int(0)] = b_.Intern(st.Text(1));
    }
    return Status::Ok();
  }
  StringId Str(const SqliteStatement& st, int col) {
    if (st.IsNull(col)) return kEmptyString;
    auto it = strings_.find(st.Int(col));
    if (it != strings_.end()) return it->second;
    b_.stats().Add(ImportStat::ascend_unknown_string);  // was named by its id, as if a real name
    return b_.Intern("?");
  }
  // A TEXT or INTEGER ns column (PYTORCH_API stores its times as TEXT).
  static std::optional<int64_t> Ns(const SqliteStatement& st, int col) {
    if (st.IsNull(col)) return std::nullopt;
    return ParseCsvInt(st.Text(col));
  }
  TrackId Thread(int64_t global_tid) { return b_.ThreadTrack(global_tid >> 32, global_tid & 0xFFFFFFFF); }

  Status ReadRankAndMeta() {
    if (db_.HasTable("RANK_DEVICE_MAP")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("RANK_DEVICE_MAP", {"rankId", "deviceId"}));
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (row) {
        if (ctx_.rank < 0 && !st.IsNull(0) && st.Int(0) >= 0) ctx_.rank = st.Int(0);
        if (!st.IsNull(1)) ctx_.device = st.Int(1);
      }
    }
    if (db_.HasTable("META_DATA")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("META_DATA", {"name", "value"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        if (st.Text(0) == "ENV_VARIABLES") b_.SetMetadataString("environment", st.Text(1));
        if (st.Text(0) == "SCHEMA_VERSION") b_.SetMetadataString("ascend_db_schema_version", st.Text(1));
      }
    }
    return Status::Ok();
  }

  Status ReadTasks() {
    if (!db_.HasTable("TASK")) {
      ctx_.Missing("TASK table");
      return Status::Ok();
    }
    // Per-task details first: compute info, PMU counters, communication task info.
    struct Compute {
      StringId name, op_type, core;
      std::optional<int64_t> block, mix_block, wait_ns;
      StringId in_shapes, in_types, in_formats, out_shapes, out_types, out_formats;
    };
    std::unordered_map<int64_t, Compute> compute;
    if (db_.HasTable("COMPUTE_TASK_INFO")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("COMPUTE_TASK_INFO",
                                         {"globalTaskId", "name", "opType", "taskType", "blockDim", "mixBlockDim",
                                          "waitNs", "inputShapes", "inputDataTypes", "inputFormats", "outputShapes",
                                          "outputDataTypes", "outputFormats"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        compute[st.Int(0)] = {Str(st, 1),     Str(st, 2),     Str(st, 3),     st.OptInt(4),   st.OptInt(5),
                              st.OptInt(6),   Str(st, 7),     Str(st, 8),     Str(st, 9),     Str(st, 10),
                              Str(st, 11),    Str(st, 12)};
      }
    }
    std::unordered_map<int64_t, std::vector<std::pair<StringId, double>>> pmu;
    if (db_.HasTable("TASK_PMU_INFO")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("TASK_PMU_INFO", {"globalTaskId", "name", "value"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        pmu[st.Int(0)].emplace_back(Str(st, 1), st.Double(2));
      }
    }
    struct Comm {
      StringId task_type;
      int64_t plane;
      std::optional<int64_t> src, dst, size;
      StringId transport, link;
    };
    std::unordered_map<int64_t, Comm> comm;
    if (db_.HasTable("COMMUNICATION_TASK_INFO")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("COMMUNICATION_TASK_INFO", {"globalTaskId", "taskType", "planeId", "srcRank",
                                                                     "dstRank", "size", "transportType", "linkType"}));
      std::unordered_map<int64_t, StringId> transport = Enum("ENUM_HCCL_TRANSPORT_TYPE"),
                                            link = Enum("ENUM_HCCL_LINK_TYPE");
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        auto tt = transport.find(st.OptInt(6).value_or(-1));
        auto lt = link.find(st.OptInt(7).value_or(-1));
        comm[st.Int(0)] = {Str(st, 1), st.OptInt(2).value_or(0), st.OptInt(3), st.OptInt(4), st.OptInt(5),
                           tt == transport.end() ? kEmptyString : tt->second,
                           lt == link.end() ? kEmptyString : lt->second};
      }
    }

    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("TASK", {"startNs", "endNs", "deviceId", "connectionId", "globalTaskId",
                                                "taskType", "streamId", "taskId", "modelId", "contextId"}));
    const StringId k_task_type = b_.Intern("Task Type"), k_stream = b_.Intern("Physic Stream Id"),
                   k_task_id = b_.Intern("Task Id"), k_model = b_.Intern("Model Id"),
                   k_conn = b_.Intern("connection_id"), k_type = b_.Intern("Type"),
                   k_core = b_.Intern("Accelerator Core"), k_block = b_.Intern("Block Dim"),
                   k_mix = b_.Intern("Mix Block Dim"), k_wait = b_.Intern("Wait Time(us)"),
                   k_in_shapes = b_.Intern("Input Shapes"), k_in_types = b_.Intern("Input Data Types"),
                   k_in_formats = b_.Intern("Input Formats"), k_out_shapes = b_.Intern("Output Shapes"),
                   k_out_types = b_.Intern("Output Data Types"), k_out_formats = b_.Intern("Output Formats"),
                   k_src = b_.Intern("src rank"), k_dst = b_.Intern("dst rank"), k_size = b_.Intern("size(Byte)"),
                   k_transport = b_.Intern("transport type"), k_link = b_.Intern("link type"),
                   k_ctx = b_.Intern("context id");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      auto start = st.OptInt(0), end = st.OptInt(1);
      if (!start || !end || *end < *start) {
        b_.stats().Add(ImportStat::negative_duration);
        continue;
      }
      int64_t device = st.OptInt(2).value_or(std::max<int64_t>(ctx_.device, 0));
      int64_t task = st.OptInt(4).value_or(-1);
      ArgTable& a = b_.args();
      StringId type_name = Str(st, 5);
      a.Add(k_task_type, Value::String(type_name));
      if (auto v = st.OptInt(6)) a.Add(k_stream, Value::Int(*v));
      if (auto v = st.OptInt(7)) a.Add(k_task_id, Value::Int(*v));
      if (auto v = st.OptInt(8)) a.Add(k_model, Value::Int(*v));
      if (auto v = st.OptInt(3)) a.Add(k_conn, Value::Int(*v));
      StringId name = type_name;
      TrackId track;
      StringId cat = kernel_cat();
      if (auto c = comm.find(task); c != comm.end()) {
        name = c->second.task_type;
        if (auto v = st.OptInt(9)) a.Add(k_ctx, Value::Int(*v));
        if (c->second.src) a.Add(k_src, Value::Int(*c->second.src));
        if (c->second.dst) a.Add(k_dst, Value::Int(*c->second.dst));
        if (c->second.size) a.Add(k_size, Value::Int(*c->second.size));
        if (c->second.transport != kEmptyString) a.Add(k_transport, Value::String(c->second.transport));
        if (c->second.link != kEmptyString) a.Add(k_link, Value::String(c->second.link));
        track = b_.ChildTrack(b_.DeviceTrack(device), TrackKind::kCommunication,
                              b_.Intern(fmt::format("Plane {}", c->second.plane)));
        cat = b_.Intern("hccl_task");
      } else {
        if (auto c2 = compute.find(task); c2 != compute.end()) {
          const Compute& ci = c2->second;
          name = ci.name;
          a.Add(k_type, Value::String(ci.op_type));
          a.Add(k_core, Value::String(ci.core));
          if (ci.block) a.Add(k_block, Value::Int(*ci.block));
          if (ci.mix_block) a.Add(k_mix, Value::Int(*ci.mix_block));
          if (ci.wait_ns) a.Add(k_wait, Value::Double(*ci.wait_ns / 1000.0));
          for (auto [k, v] : {std::pair{k_in_shapes, ci.in_shapes}, {k_in_types, ci.in_types},
                              {k_in_formats, ci.in_formats}, {k_out_shapes, ci.out_shapes},
                              {k_out_types, ci.out_types}, {k_out_formats, ci.out_formats}}) {
            if (v != kEmptyString) a.Add(k, Value::String(v));
          }
        }
        if (auto p = pmu.find(task); p != pmu.end()) {
          for (auto [k, v] : p->second) a.Add(k, Value::Double(v));
        }
        track = b_.StreamTrack(TrackKind::kNpuStream, device, st.OptInt(6).value_or(0));
      }
      SliceId id = b_.AddSlice({.ts_ns = *start,
                                .dur_ns = *end - *start,
                                .track_id = track,
                                .name_id = name,
                                .category_id = cat,
                                .arg_set_id = a.Finish()});
      if (auto conn = st.OptInt(3)) tasks_by_connection_[*conn].push_back(id);
    }
    return Status::Ok();
  }

  StringId kernel_cat() { return b_.Intern("kernel"); }

  std::unordered_map<int64_t, StringId> Enum(const char* table) {
    std::unordered_map<int64_t, StringId> out;
    if (!db_.HasTable(table)) return out;
    auto st = db_.SelectColumns(table, {"id", "name"});
    if (!st.ok()) return out;
    while (true) {
      auto row = st->Step();
      if (!row.ok() || !*row) break;
      out[st->Int(0)] = b_.Intern(st->Text(1));
    }
    return out;
  }

  void LaunchFlows(int64_t connection, SliceId from, FlowKind kind, StringId name) {
    auto it = tasks_by_connection_.find(connection);
    if (it == tasks_by_connection_.end()) return;
    for (SliceId to : it->second) b_.AddFlow(from, to, kind, name);
  }

  Status ReadHostApis() {
    // CANN API calls: runtime/acl/node/hccl levels on host threads, linked to their tasks.
    if (db_.HasTable("CANN_API")) {
      auto levels = Enum("ENUM_API_TYPE");
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("CANN_API", {"startNs", "endNs", "type", "globalTid", "connectionId", "name"}));
      const StringId cat = b_.Intern("cann"), k_level = b_.Intern("level"), k_conn = b_.Intern("connection_id"),
                     flow = b_.Intern("HostToDevice");
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        auto start = st.OptInt(0), end = st.OptInt(1);
        if (!start || !end || *end < *start) continue;
        auto lv = levels.find(st.OptInt(2).value_or(-1));
        if (lv != levels.end()) b_.args().Add(k_level, Value::String(lv->second));
        auto conn = st.OptInt(4);
        if (conn) b_.args().Add(k_conn, Value::Int(*conn));
        SliceId id = b_.AddSlice({.ts_ns = *start,
                                  .dur_ns = *end - *start,
                                  .track_id = Thread(st.OptInt(3).value_or(0)),
                                  .name_id = Str(st, 5),
                                  .category_id = cat,
                                  .arg_set_id = b_.args().Finish()});
        if (conn) LaunchFlows(*conn, id, FlowKind::kHostToDevice, flow);
      }
    }
    if (!db_.HasTable("PYTORCH_API")) return Status::Ok();
    std::unordered_map<int64_t, std::vector<int64_t>> connections;  // PYTORCH_API.connectionId -> ids
    if (db_.HasTable("CONNECTION_IDS")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("CONNECTION_IDS", {"id", "connectionId"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        connections[st.Int(0)].push_back(st.Int(1));
      }
    }
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("PYTORCH_API", {"startNs", "endNs", "globalTid", "connectionId", "name",
                                                       "sequenceNumber", "fwdThreadId", "inputDtypes", "inputShapes",
                                                       "type"}));
    const StringId k_seq = b_.Intern("Sequence number"), k_fwd = b_.Intern("Fwd thread id"),
                   k_types = b_.Intern("Input type"), k_shapes = b_.Intern("Input Dims"),
                   flow = b_.Intern("async_npu");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      auto start = Ns(st, 0), end = Ns(st, 1);
      if (!start || !end || *end < *start) {
        b_.stats().Add(ImportStat::negative_duration);
        continue;
      }
      // ENUM_API_TYPE: 50001 op, 50002 queue, 50003 python trace, 50004 mstx.
      int64_t type = st.OptInt(9).value_or(50001);
      const char* cat = type == 50002 ? "queue" : type == 50003 ? "python_function" : type == 50004 ? "mstx" : "cpu_op";
      ArgTable& a = b_.args();
      if (auto v = st.OptInt(5)) a.Add(k_seq, Value::Int(*v));
      if (auto v = st.OptInt(6)) a.Add(k_fwd, Value::Int(*v));
      if (!st.IsNull(7)) a.Add(k_types, Value::String(Str(st, 7)));
      if (!st.IsNull(8)) a.Add(k_shapes, Value::String(Str(st, 8)));
      SliceId id = b_.AddSlice({.ts_ns = *start,
                                .dur_ns = *end - *start,
                                .track_id = Thread(st.OptInt(2).value_or(0)),
                                .name_id = Str(st, 4),
                                .category_id = b_.Intern(cat),
                                .arg_set_id = a.Finish()});
      if (type == 50001 && !st.IsNull(3)) {
        if (auto it = connections.find(st.Int(3)); it != connections.end()) {
          for (int64_t conn : it->second) LaunchFlows(conn, id, FlowKind::kHostToDevice, flow);
        }
      }
    }
    return Status::Ok();
  }

  Status ReadOverlap() {
    if (!db_.HasTable("OVERLAP_ANALYSIS")) return Status::Ok();
    static constexpr const char* kNames[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("OVERLAP_ANALYSIS", {"deviceId", "startNs", "endNs", "type"}));
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t type = st.OptInt(3).value_or(-1);
      if (type < 0 || type > 3) continue;
      int64_t device = st.OptInt(0).value_or(std::max<int64_t>(ctx_.device, 0));
      StringId name = b_.Intern(kNames[type]);
      b_.AddSlice({.ts_ns = st.Int(1),
                   .dur_ns = st.Int(2) - st.Int(1),
                   .track_id = b_.ChildTrack(b_.DeviceTrack(device), TrackKind::kAnalysis, name),
                   .name_id = name});
    }
    return Status::Ok();
  }

  Status ReadMemory() {
    auto counter = [&](int64_t device, const std::string& name) {
      TrackId t = b_.ChildTrack(device >= 0 ? b_.DeviceTrack(device) : kNoTrack, TrackKind::kCounter, b_.Intern(name));
      b_.tracks().unit_id[Index(t)] = b_.Intern("MB");
      return t;
    };
    if (db_.HasTable("MEMORY_RECORD")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("MEMORY_RECORD", {"component", "timestamp", "totalAllocated", "totalReserved",
                                                           "totalActive", "deviceId"}));
      static constexpr const char* kCols[] = {"Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)"};
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        std::string comp(b_.trace().Str(Str(st, 0)));
        int64_t device = st.OptInt(5).value_or(std::max<int64_t>(ctx_.device, 0));
        for (int k = 0; k < 3; ++k) {
          if (auto v = st.OptDouble(2 + k)) b_.AddCounter(counter(device, comp + " " + kCols[k]), st.Int(1), *v / kMB);
        }
      }
    }
    if (db_.HasTable("NPU_MODULE_MEM")) {
      auto modules = Enum("ENUM_MODULE");
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("NPU_MODULE_MEM", {"moduleId", "timestampNs", "totalReserved", "deviceId"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        auto m = modules.find(st.OptInt(0).value_or(-1));
        std::string name = "module " + (m == modules.end() ? std::to_string(st.OptInt(0).value_or(-1))
                                                           : std::string(b_.trace().Str(m->second))) +
                           " Total Reserved(MB)";
        if (auto v = st.OptDouble(2)) {
          b_.AddCounter(counter(st.OptInt(3).value_or(std::max<int64_t>(ctx_.device, 0)), name), st.Int(1), *v / kMB);
        }
      }
    }
    if (db_.HasTable("OP_MEMORY")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("OP_MEMORY", {"name", "size", "allocationTime", "releaseTime",
                                                       "allocationTotalAllocated", "allocationTotalReserved",
                                                       "releaseTotalAllocated", "releaseTotalReserved", "deviceId"}));
      const StringId cat = b_.Intern("operator_memory"), track_name = b_.Intern("operator memory"),
                     k_size = b_.Intern("Size(KB)");
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        auto alloc = st.OptInt(2);
        auto bytes = st.OptInt(1);
        if (!alloc || !bytes) continue;
        int64_t device = st.OptInt(8).value_or(std::max<int64_t>(ctx_.device, 0));
        TrackId dev_track = b_.DeviceTrack(device);
        b_.AddMemoryEvent({.ts_ns = *alloc, .track_id = dev_track, .device = device, .bytes = *bytes,
                           .total_allocated = st.OptInt(4).value_or(kUnknown),
                           .total_reserved = st.OptInt(5).value_or(kUnknown)});
        auto release = st.OptInt(3);
        if (release) {
          b_.AddMemoryEvent({.ts_ns = *release, .track_id = dev_track, .device = device, .bytes = -*bytes,
                             .total_allocated = st.OptInt(6).value_or(kUnknown),
                             .total_reserved = st.OptInt(7).value_or(kUnknown)});
        }
        b_.args().Add(k_size, Value::Double(*bytes / 1024.0));
        b_.AddSlice({.ts_ns = *alloc,
                     .dur_ns = release && *release >= *alloc ? *release - *alloc : 0,
                     .track_id = b_.ChildTrack(dev_track, TrackKind::kAsync, track_name),
                     .name_id = Str(st, 0),
                     .category_id = cat,
                     .arg_set_id = b_.args().Finish()});
      }
    }
    return Status::Ok();
  }

  // HCCL ops from COMMUNICATION_OP (the op rows of the timeline); their time breakdown comes
  // from analysis.db afterwards.
  Status ReadCommOps() {
    if (ctx_.options().summary_tables_only || !db_.HasTable("COMMUNICATION_OP")) return Status::Ok();
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("COMMUNICATION_OP", {"opName", "startNs", "endNs", "groupName", "dataType",
                                                            "algType", "count", "opType", "waitNs", "connectionId"}));
    auto data_types = Enum("ENUM_HCCL_DATA_TYPE");
    const StringId cat = b_.Intern("hccl"), k_dt = b_.Intern("data_type"), k_alg = b_.Intern("alg_type"),
                   k_count = b_.Intern("count"), k_op = b_.Intern("op_type"), k_conn = b_.Intern("connection_id");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      auto start = st.OptInt(1), end = st.OptInt(2);
      if (!start || !end || *end < *start) continue;
      ArgTable& a = b_.args();
      if (auto dt = data_types.find(st.OptInt(4).value_or(-1)); dt != data_types.end()) {
        a.Add(k_dt, Value::String(dt->second));
      }
      if (!st.IsNull(5)) a.Add(k_alg, Value::String(Str(st, 5)));
      if (auto v = st.OptDouble(6)) a.Add(k_count, Value::Int(static_cast<int64_t>(*v)));
      if (!st.IsNull(7)) a.Add(k_op, Value::String(Str(st, 7)));
      auto conn = st.OptInt(9);
      if (conn) a.Add(k_conn, Value::Int(*conn));
      std::string group(b_.trace().Str(Str(st, 3)));
      TrackId track = b_.ChildTrack(b_.DeviceTrack(std::max<int64_t>(ctx_.device, 0)), TrackKind::kCommunication,
                                    b_.Intern("Communication group " + group));
      b_.AddSlice({.ts_ns = *start,
                   .dur_ns = *end - *start,
                   .track_id = track,
                   .name_id = Str(st, 0),
                   .category_id = cat,
                   .arg_set_id = a.Finish()});
    }
    return Status::Ok();
  }

  const SqliteDb& db_;
  AscendImportContext& ctx_;
  TraceBuilder& b_;
  uint64_t rows_ = 0;
  std::unordered_map<int64_t, StringId> strings_;
  std::unordered_map<int64_t, std::vector<SliceId>> tasks_by_connection_;
};

}  // namespace

Status ReadAscendDbExport(const AscendPtLayout& layout, AscendImportContext* ctx) {
  if (layout.pytorch_db.empty() && layout.analysis_db.empty()) {
    return InvalidInput("{}: no ascend_pytorch_profiler .db and no analysis.db", layout.root);
  }
  if (!layout.pytorch_db.empty()) {
    ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(layout.pytorch_db));
    AscendDbImport imp(db, ctx);
    RETURN_IF_ERROR(imp.Run());
  } else {
    ctx->Missing("ascend_pytorch_profiler.db");
  }
  DeviceTaskIndex index(ctx->b().trace());
  if (!layout.analysis_db.empty()) {
    auto db = SqliteDb::Open(layout.analysis_db);
    if (db.ok()) {
      ctx->Attempt(ReadAnalysisDb(*db, ctx, &index));
    } else {
      ctx->Problem(db.status());
    }
  } else {
    ctx->Missing("analysis.db");
  }
  if (!ctx->options().summary_tables_only) RunAscendCrossChecks(ctx);
  ctx->b().SetMetadataString("export_type", "db");
  return Status::Ok();
}

}  // namespace cprof
