// kernel_details.csv / op_summary_*.csv rows -> args of device tasks.
#include "import/ascend/kernel_table_reader.h"

#include <string_view>
#include <utility>

namespace cprof {
namespace {

// Variant spelling -> the torch_npu kernel_details.csv spelling used as the arg key.
std::string_view CanonicalKey(std::string_view header) {
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"Block Num", "Block Dim"},        {"OP Type", "Type"},           {"Task Type", "Accelerator Core"},
      {"Stream Id", "Stream ID"},        {"Task Id", "Task ID"},        {"Step ID", "Step Id"},
      {"Task Wait Time(us)", "Wait Time(us)"}, {"Device ID", "Device_id"}, {"Model Id", "Model ID"},
      {"Mix Block Num", "Mix Block Dim"}};
  for (auto [from, to] : kAliases) {
    if (header == from) return to;
  }
  return header;
}

}  // namespace

Status ReadKernelTable(const std::string& path, AscendImportContext* ctx, DeviceTaskIndex* index) {
  TraceBuilder& b = ctx->b();
  int name_col = -1, start_col = -1, dur_col = -1, stream_col = -1, core_col = -1, device_col = -1;
  std::vector<StringId> keys;        // per column: arg key, or kEmptyString for structural columns
  const bool had_tasks = index->size() > 0;
  const int64_t device = ctx->DeviceForNewTracks();
  const StringId kernel_cat = b.Intern("kernel"), hccl_cat = b.Intern("hccl");
  const StringId hccl_track = b.Intern("HCCL");
  std::vector<std::pair<StringId, Value>> row_args;

  auto on_header = [&](const CsvHeader& h) -> Status {
    ASSIGN_OR_RETURN(name_col, h.Require({"Name", "Op Name", "OP Name"}));
    ASSIGN_OR_RETURN(start_col, h.Require({"Start Time(us)", "Task Start Time(us)", "Start Time"}));
    ASSIGN_OR_RETURN(dur_col, h.Require({"Duration(us)", "Task Duration(us)", "Duration"}));
    stream_col = h.Find({"Stream ID", "Stream Id"});
    core_col = h.Find({"Accelerator Core", "Task Type"});
    device_col = h.Find({"Device_id", "Device ID"});
    keys.assign(h.names().size(), kEmptyString);
    for (size_t c = 0; c < h.names().size(); ++c) {
      if (static_cast<int>(c) == name_col || static_cast<int>(c) == start_col || static_cast<int>(c) == dur_col) {
        continue;
      }
      keys[c] = b.Intern(CanonicalKey(h.names()[c]));
    }
    return Status::Ok();
  };

  auto on_row = [&](const CsvRow& row) -> Status {
    auto name = row.Text(name_col);
    if (!name) return row.BadCell(name_col, "expected a kernel name");
    ASSIGN_OR_RETURN(std::optional<int64_t> ts, row.MicrosNs(start_col));
    ASSIGN_OR_RETURN(std::optional<int64_t> dur, row.MicrosNs(dur_col));
    if (!ts) return row.BadCell(start_col, "expected a start time");
    ASSIGN_OR_RETURN(std::optional<int64_t> stream, row.Int(stream_col));
    ASSIGN_OR_RETURN(std::optional<int64_t> dev, row.Int(device_col));
    row_args.clear();
    for (size_t c = 0; c < keys.size(); ++c) {
      if (keys[c] == kEmptyString) continue;
      if (auto cell = row.Text(static_cast<int>(c))) row_args.emplace_back(keys[c], CsvCellValue(b, *cell));
    }
    ArgTable& args = b.args();
    SliceId slice = index->Claim(b.trace().strings.Find(*name), *ts, 1000);
    if (slice != kNoSlice) {
      // The merged set: the task's own args, then the table's columns it does not have yet.
      ArgSetId old = b.trace().slices.arg_set_id[Index(slice)];
      size_t first = args.size();
      if (old != kNoArgs) {
        // The end is fixed first: when `old` is the newest set (a duplicate row claimed this slice
        // already), its end moves with every Add and the copy would never finish.
        for (uint32_t r = args.begin(old), end = args.end(old); r < end; ++r) args.Add(args.key_id[r], args.value[r]);
      }
      for (const auto& [k, v] : row_args) {
        bool dup = false;
        for (size_t r = first; r < args.size() && !dup; ++r) dup = args.key_id[r] == k;
        if (!dup) args.Add(k, v);
      }
      b.SetSliceArgs(slice, args.Finish());
      return Status::Ok();
    }
    if (had_tasks) b.stats().Add(ImportStat::ascend_kernel_unmatched);
    for (const auto& [k, v] : row_args) args.Add(k, v);
    auto core = row.Text(core_col);
    const bool hccl = (core && *core == "HCCL") || !stream;
    int64_t d = dev.value_or(device);
    TrackId track = hccl ? b.ChildTrack(b.DeviceTrack(d), TrackKind::kCommunication, hccl_track)
                         : b.StreamTrack(TrackKind::kNpuStream, d, *stream);
    StringId name_id = b.Intern(*name);
    SliceId id = b.AddSlice({.ts_ns = *ts,
                             .dur_ns = dur.value_or(0),
                             .track_id = track,
                             .name_id = name_id,
                             .category_id = hccl ? hccl_cat : kernel_cat,
                             .arg_set_id = args.Finish()});
    index->Add(name_id, *ts, id);
    return Status::Ok();
  };
  return ctx->ForEachCsvRow(path, on_header, on_row);
}

}  // namespace cprof
