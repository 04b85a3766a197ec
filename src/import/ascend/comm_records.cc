// Communication ops -> slice args; links -> metadata.
#include "import/ascend/comm_records.h"

#include <nlohmann/json.hpp>

#include "import/ascend/metadata_json.h"

namespace cprof {

void SplitOpKey(std::string_view key, std::string* name, std::string* group) {
  size_t at = key.find('@');
  *name = std::string(key.substr(0, at));
  *group = at == std::string_view::npos ? std::string() : std::string(key.substr(at + 1));
}

void AddCommOp(const CommOpRecord& op, AscendImportContext* ctx, DeviceTaskIndex* index, int64_t tolerance_ns) {
  TraceBuilder& b = ctx->b();
  ArgTable& args = b.args();
  // communication.json rounds the start to its double (0.25 us at epoch scale) and tables
  // differ by a few ns; the default 2 us is far below the gap between two launches of one op.
  SliceId slice = index->Claim(b.trace().strings.Find(op.name), op.start_ns, tolerance_ns);
  if (slice != kNoSlice) {
    ArgSetId old = b.trace().slices.arg_set_id[Index(slice)];
    if (old != kNoArgs) {
      // The end is fixed first: when `old` is the newest set (a duplicate row claimed this slice
      // already), its end moves with every Add and the copy would never finish.
      for (uint32_t r = args.begin(old), end = args.end(old); r < end; ++r) args.Add(args.key_id[r], args.value[r]);
    }
  }
  auto add_str = [&](std::string_view k, std::string_view v) { args.Add(b.Intern(k), Value::String(b.Intern(v))); };
  add_str("comm.step", op.step);
  add_str("comm.kind", op.kind);
  if (!op.group.empty()) add_str("comm.group", op.group);
  args.Add(b.Intern(kCommElapseArg), Value::Int(op.elapse_ns));
  args.Add(b.Intern("comm.transit_time_ns"), Value::Int(op.transit_ns));
  args.Add(b.Intern("comm.wait_time_ns"), Value::Int(op.wait_ns));
  args.Add(b.Intern("comm.synchronization_time_ns"), Value::Int(op.sync_ns));
  args.Add(b.Intern("comm.idle_time_ns"), Value::Int(op.idle_ns));
  args.Add(b.Intern("comm.wait_time_ratio"), Value::Double(op.wait_ratio));
  args.Add(b.Intern("comm.synchronization_time_ratio"), Value::Double(op.sync_ratio));
  for (const auto& t : op.transports) {
    if (t.size_mb == 0 && t.time_ns == 0) continue;
    args.Add(b.Intern("comm." + t.type + ".transit_size_mb"), Value::Double(t.size_mb));
    args.Add(b.Intern("comm." + t.type + ".transit_time_ns"), Value::Int(t.time_ns));
    args.Add(b.Intern("comm." + t.type + ".bandwidth_gbps"), Value::Double(t.bandwidth_gbps));
    args.Add(b.Intern("comm." + t.type + ".large_packet_ratio"), Value::Double(t.large_packet_ratio));
  }
  ArgSetId set = args.Finish();
  if (slice != kNoSlice) {
    b.SetSliceArgs(slice, set);
    return;
  }
  if (index->size() > 0) b.stats().Add(ImportStat::ascend_comm_op_unmatched);
  std::string track_name = op.group.empty() ? "Communication" : "Communication group " + op.group;
  TrackId track = b.ChildTrack(b.DeviceTrack(ctx->DeviceForNewTracks()), TrackKind::kCommunication,
                               b.Intern(track_name));
  StringId name = b.Intern(op.name);
  SliceId id = b.AddSlice({.ts_ns = op.start_ns,
                           .dur_ns = op.elapse_ns,
                           .track_id = track,
                           .name_id = name,
                           .category_id = b.Intern("hccl"),
                           .arg_set_id = set});
  index->Add(name, op.start_ns, id);
}

void SetCommMatrix(const std::vector<CommLinkRecord>& links, TraceBuilder* b) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& l : links) {
    arr.push_back({{"step", l.step},
                   {"kind", l.kind},
                   {"op", l.op},
                   {"group", l.group},
                   {"src_rank", l.src_rank},
                   {"dst_rank", l.dst_rank},
                   {"transport", l.transport},
                   {"transit_size_mb", l.transit_size_mb},
                   {"transit_time_ms", l.transit_time_ms},
                   {"bandwidth_gbps", l.bandwidth_gbps},
                   {"op_name", l.op_name}});
  }
  b->SetMetadataString(kCommunicationMatrixKey, MetadataJsonText(arr));
}

}  // namespace cprof
