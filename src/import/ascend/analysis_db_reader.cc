// analysis.db of a torch_npu / msprof export: the step breakdown (StepTraceTime) and the
// communication analysis (CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix).
#include "import/ascend/analysis_db_reader.h"

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "import/ascend/comm_records.h"
#include "import/ascend/metadata_json.h"
#include "import/ascend/summary_tables_reader.h"

namespace cprof {

Status ReadAnalysisDb(const SqliteDb& db, AscendImportContext* ctx, DeviceTaskIndex* index) {
  TraceBuilder& b = ctx->b();
  if (db.HasTable("StepTraceTime")) {
    ASSIGN_OR_RETURN(SqliteStatement st, db.Prepare("SELECT * FROM StepTraceTime"));
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      nlohmann::ordered_json obj = nlohmann::ordered_json::object();
      for (int c = 0; c < st.column_count(); ++c) {
        std::string key = SnakeCaseColumn(st.column_name(c));
        if (st.IsNull(c)) {
          obj[key] = nullptr;
        } else if (auto i = ParseCsvInt(st.Text(c)); i && st.Text(c).find_first_of(".eE") == std::string_view::npos) {
          obj[key] = *i;
        } else if (auto d = ParseCsvDouble(st.Text(c))) {
          obj[key] = *d;
        } else {
          obj[key] = std::string(st.Text(c));
        }
      }
      rows.push_back(std::move(obj));
    }
    b.SetMetadataString(kAscendStepTraceKey, MetadataJsonText(rows));
  } else {
    ctx->Missing("analysis.db StepTraceTime");
  }
  if (db.HasTable("CommAnalyzerTime")) {
    std::map<std::pair<std::string, std::string>, std::vector<CommOpRecord::Transport>> bandwidth;
    if (db.HasTable("CommAnalyzerBandwidth")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db.SelectColumns("CommAnalyzerBandwidth", {"hccl_op_name", "step", "transport_type",
                                                                  "transit_size", "transit_time", "bandwidth",
                                                                  "large_packet_ratio"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, st.Step());
        if (!row) break;
        auto& v = bandwidth[{std::string(st.Text(0)), std::string(st.Text(1))}];
        std::string type(st.Text(2));
        bool seen = false;  // one row per package size; the transport totals repeat on each
        for (const auto& t : v) seen |= t.type == type;
        if (seen) continue;
        v.push_back({.type = type,
                     .size_mb = st.OptDouble(3).value_or(0),
                     .time_ns = std::llround(st.OptDouble(4).value_or(0) * 1e6),
                     .bandwidth_gbps = st.OptDouble(5).value_or(0),
                     .large_packet_ratio = st.OptDouble(6).value_or(0)});
      }
    }
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db.SelectColumns("CommAnalyzerTime", {"hccl_op_name", "group_name", "start_timestamp",
                                                           "elapse_time", "transit_time", "wait_time",
                                                           "synchronization_time", "idle_time", "step", "type"}));
    auto ms = [&](int c) { return std::llround(st.OptDouble(c).value_or(0) * 1e6); };
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      CommOpRecord op;
      op.name = std::string(st.Text(0));
      op.group = std::string(st.Text(1));
      double us = st.OptDouble(2).value_or(0);
      op.start_ns = static_cast<int64_t>(std::floor(us)) * 1000 + std::llround((us - std::floor(us)) * 1000);
      op.elapse_ns = ms(3), op.transit_ns = ms(4), op.wait_ns = ms(5), op.sync_ns = ms(6), op.idle_ns = ms(7);
      op.wait_ratio = op.wait_ns + op.transit_ns > 0 ? double(op.wait_ns) / double(op.wait_ns + op.transit_ns) : 0;
      op.sync_ratio = op.sync_ns + op.transit_ns > 0 ? double(op.sync_ns) / double(op.sync_ns + op.transit_ns) : 0;
      op.step = std::string(st.Text(8));
      op.kind = std::string(st.Text(9));
      if (auto it = bandwidth.find({op.name, op.step}); it != bandwidth.end()) op.transports = it->second;
      // analysis.db may store the start as a REAL rounded to 10 us: match by name within 1 ms.
      AddCommOp(op, ctx, index, 1'000'000);
    }
  } else {
    ctx->Missing("analysis.db CommAnalyzerTime");
  }
  if (db.HasTable("CommAnalyzerMatrix")) {
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db.SelectColumns("CommAnalyzerMatrix", {"hccl_op_name", "group_name", "src_rank", "dst_rank",
                                                             "transport_type", "transit_size", "transit_time",
                                                             "bandwidth", "step", "type", "op_name"}));
    std::vector<CommLinkRecord> links;
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.Step());
      if (!row) break;
      links.push_back({.step = std::string(st.Text(8)),
                       .kind = std::string(st.Text(9)),
                       .op = std::string(st.Text(0)),
                       .group = std::string(st.Text(1)),
                       .transport = std::string(st.Text(4)),
                       .op_name = std::string(st.Text(10)),
                       .src_rank = ParseCsvInt(st.Text(2)).value_or(-1),
                       .dst_rank = ParseCsvInt(st.Text(3)).value_or(-1),
                       .transit_size_mb = st.OptDouble(5).value_or(0),
                       .transit_time_ms = st.OptDouble(6).value_or(0),
                       .bandwidth_gbps = st.OptDouble(7).value_or(0)});
    }
    SetCommMatrix(links, &b);
  }
  return Status::Ok();
}

}  // namespace cprof
