// communication.json, communication_matrix.json, profiler_info_N.json, profiler_metadata.json.
#include "import/ascend/ascend_json_reader.h"

#include <simdjson.h>

#include <cmath>

#include "base/byte_source.h"
#include "import/ascend/comm_records.h"

namespace cprof {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// The file's top-level object; `what` names what it should hold, for the error.
StatusOr<object> ParseJsonObject(const std::string& path, const AscendImportContext& ctx, std::string_view what,
                                 simdjson::dom::parser* parser, simdjson::padded_string* buf) {
  // Held twice (text and its padded copy) plus simdjson's tape: a quarter of the memory limit.
  ASSIGN_OR_RETURN(std::string text,
                   ReadWholeFile(path, ctx.options().max_memory_bytes / 4, ctx.options().decompression));
  *buf = simdjson::padded_string(text);
  element root;
  auto error = parser->parse(*buf).get(root);
  if (error) return InvalidInput("{}: not valid JSON: {}", path, simdjson::error_message(error));
  object o;
  if (root.get_object().get(o)) return InvalidInput("{}: expected a JSON object{}", path, what);
  return o;
}

double Num(const object& o, std::string_view key) {
  element e;
  if (o.at_key(key).get(e)) return 0;
  double d;
  if (!e.get_double().get(d)) return d;
  int64_t i;
  if (!e.get_int64().get(i)) return static_cast<double>(i);
  uint64_t u;
  if (!e.get_uint64().get(u)) return static_cast<double>(u);
  return 0;
}

int64_t MsToNs(double ms) { return std::isfinite(ms) ? std::llround(ms * 1e6) : 0; }

// An epoch-scale µs double to ns without losing the integer part to a ns-scale double.
int64_t MicrosToNs(double us) {
  if (!std::isfinite(us)) return 0;
  double whole = std::floor(us);
  return static_cast<int64_t>(whole) * 1000 + std::llround((us - whole) * 1000.0);
}

std::string Minify(const element& e) { return simdjson::minify(e); }

}  // namespace

Status ReadCommunicationJson(const std::string& path, AscendImportContext* ctx, DeviceTaskIndex* index) {
  simdjson::dom::parser parser;
  simdjson::padded_string buf;
  ASSIGN_OR_RETURN(object steps, ParseJsonObject(path, *ctx, " of steps", &parser, &buf));
  for (auto [step_key, step_val] : steps) {
    object kinds;
    if (step_val.get_object().get(kinds)) continue;
    for (auto [kind_key, kind_val] : kinds) {
      object ops;
      if (kind_val.get_object().get(ops)) continue;
      for (auto [op_key, op_val] : ops) {
        if (op_key == "Total Op Info") continue;  // a sum the analyses recompute
        object op_obj, time_info;
        if (op_val.get_object().get(op_obj) || op_obj["Communication Time Info"].get_object().get(time_info)) {
          return InvalidInput("{}: {}/{}/{}: no 'Communication Time Info' object", path, step_key, kind_key, op_key);
        }
        CommOpRecord op;
        op.step = std::string(step_key);
        op.kind = std::string(kind_key);
        SplitOpKey(op_key, &op.name, &op.group);
        op.start_ns = MicrosToNs(Num(time_info, "Start Timestamp(us)"));
        op.elapse_ns = MsToNs(Num(time_info, "Elapse Time(ms)"));
        op.transit_ns = MsToNs(Num(time_info, "Transit Time(ms)"));
        op.wait_ns = MsToNs(Num(time_info, "Wait Time(ms)"));
        op.sync_ns = MsToNs(Num(time_info, "Synchronization Time(ms)"));
        op.idle_ns = MsToNs(Num(time_info, "Idle Time(ms)"));
        op.wait_ratio = Num(time_info, "Wait Time Ratio");
        op.sync_ratio = Num(time_info, "Synchronization Time Ratio");
        object bw;
        if (!op_obj["Communication Bandwidth Info"].get_object().get(bw)) {
          for (auto [transport, info] : bw) {
            object t;
            if (info.get_object().get(t)) continue;
            op.transports.push_back({.type = std::string(transport),
                                     .size_mb = Num(t, "Transit Size(MB)"),
                                     .time_ns = MsToNs(Num(t, "Transit Time(ms)")),
                                     .bandwidth_gbps = Num(t, "Bandwidth(GB/s)"),
                                     .large_packet_ratio = Num(t, "Large Packet Ratio")});
          }
        }
        AddCommOp(op, ctx, index);
      }
    }
  }
  return Status::Ok();
}

Status ReadCommunicationMatrixJson(const std::string& path, AscendImportContext* ctx) {
  simdjson::dom::parser parser;
  simdjson::padded_string buf;
  ASSIGN_OR_RETURN(object steps, ParseJsonObject(path, *ctx, " of steps", &parser, &buf));
  std::vector<CommLinkRecord> links;
  for (auto [step_key, step_val] : steps) {
    object kinds;
    if (step_val.get_object().get(kinds)) continue;
    for (auto [kind_key, kind_val] : kinds) {
      object ops;
      if (kind_val.get_object().get(ops)) continue;
      for (auto [op_key, op_val] : ops) {
        object link_map;
        if (op_val.get_object().get(link_map)) continue;
        std::string op, group;
        SplitOpKey(op_key, &op, &group);
        for (auto [link_key, link_val] : link_map) {
          object l;
          if (link_val.get_object().get(l)) continue;
          CommLinkRecord r{.step = std::string(step_key), .kind = std::string(kind_key), .op = op, .group = group};
          size_t dash = link_key.find('-');
          if (dash != std::string_view::npos) {
            r.src_rank = ParseCsvInt(link_key.substr(0, dash)).value_or(-1);
            r.dst_rank = ParseCsvInt(link_key.substr(dash + 1)).value_or(-1);
          }
          std::string_view s;
          if (!l["Transport Type"].get_string().get(s)) r.transport = std::string(s);
          if (!l["Op Name"].get_string().get(s)) r.op_name = std::string(s);
          r.transit_size_mb = Num(l, "Transit Size(MB)");
          r.transit_time_ms = Num(l, "Transit Time(ms)");
          r.bandwidth_gbps = Num(l, "Bandwidth(GB/s)");
          links.push_back(std::move(r));
        }
      }
    }
  }
  SetCommMatrix(links, &ctx->b());
  return Status::Ok();
}

Status ReadProfilerInfoJson(const std::string& path, AscendImportContext* ctx) {
  simdjson::dom::parser parser;
  simdjson::padded_string buf;
  ASSIGN_OR_RETURN(object o, ParseJsonObject(path, *ctx, "", &parser, &buf));
  TraceBuilder& b = ctx->b();
  int64_t rank;
  if (!o["rank_id"].get_int64().get(rank) && rank >= 0) ctx->rank = rank;
  element e;
  if (!o["config"].get(e)) b.SetMetadataString("profiler_config", Minify(e));
  // Clock sync: the syscnt/monotonic anchors and the collection end, for aligning ranks.
  std::string clock = "{";
  for (const char* key : {"start_info", "end_info"}) {
    if (o[key].get(e)) continue;
    if (clock.size() > 1) clock += ",";
    clock += "\"" + std::string(key) + "\":" + Minify(e);
  }
  clock += "}";
  if (clock.size() > 2) b.SetMetadataString("clock_sync", clock);
  return Status::Ok();
}

Status ReadProfilerMetadataJson(const std::string& path, AscendImportContext* ctx) {
  simdjson::dom::parser parser;
  simdjson::padded_string buf;
  ASSIGN_OR_RETURN(object o, ParseJsonObject(path, *ctx, "", &parser, &buf));
  TraceBuilder& b = ctx->b();
  element e;
  if (!o["ENV_VARIABLES"].get(e)) b.SetMetadataString("environment", Minify(e));
  // Newer torch_npu writes the parallel layout here.
  object dist;
  if (!o["distributed_args"].get_object().get(dist)) {
    b.SetMetadataString(meta::kDistributedInfo, Minify(o["distributed_args"].value_unsafe()));
    int64_t v;
    if (!dist["world_size"].get_int64().get(v)) b.SetMetadata(meta::kWorldSize, Value::Int(v));
    if (!dist["rank"].get_int64().get(v) && ctx->rank < 0) ctx->rank = v;
  }
  b.SetMetadataString("ascend_profiler_metadata", simdjson::minify(o));
  return Status::Ok();
}

}  // namespace cprof
