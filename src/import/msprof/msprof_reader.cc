// msprof PROF_* folders.
#include "import/msprof/msprof_reader.h"

#include "import/ascend/ascend_cross_checks.h"
#include "import/ascend/ascend_import_context.h"
#include "import/ascend/ascend_json_reader.h"
#include "import/ascend/device_task_index.h"
#include "import/ascend/kernel_table_reader.h"
#include "import/ascend/summary_tables_reader.h"
#include "import/json/json_trace_reader.h"
#include "import/msprof/msprof_layout.h"

namespace cprof {
namespace {

// task_time_*.csv: one row per device task (used when there is no timeline JSON).
Status ReadTaskTime(const std::string& path, AscendImportContext* ctx) {
  TraceBuilder& b = ctx->b();
  int name = -1, type = -1, stream = -1, task = -1, start = -1, dur = -1, device_col = -1;
  const StringId cat = b.Intern("kernel"), k_type = b.Intern("Task Type"), k_task = b.Intern("Task Id");
  const int64_t device = ctx->DeviceForNewTracks();
  auto on_header = [&](const CsvHeader& h) -> Status {
    ASSIGN_OR_RETURN(name, h.Require({"kernel_name", "Op Name", "Name"}));
    ASSIGN_OR_RETURN(start, h.Require({"task_start(us)", "Task Start Time(us)"}));
    ASSIGN_OR_RETURN(dur, h.Require({"task_time(us)", "Task Duration(us)"}));
    type = h.Find({"kernel_type", "Task Type"});
    stream = h.Find({"stream_id", "Stream ID"});
    task = h.Find({"task_id", "Task ID"});
    device_col = h.Find({"Device_id"});
    return Status::Ok();
  };
  auto on_row = [&](const CsvRow& row) -> Status {
    ASSIGN_OR_RETURN(std::optional<int64_t> ts, row.MicrosNs(start));
    ASSIGN_OR_RETURN(std::optional<int64_t> d, row.MicrosNs(dur));
    ASSIGN_OR_RETURN(std::optional<int64_t> s, row.Int(stream));
    ASSIGN_OR_RETURN(std::optional<int64_t> t, row.Int(task));
    ASSIGN_OR_RETURN(std::optional<int64_t> dev, row.Int(device_col));
    if (!ts) return row.BadCell(start, "expected a start time");
    if (auto ty = row.Text(type)) b.args().Add(k_type, Value::String(b.Intern(*ty)));
    if (t) b.args().Add(k_task, Value::Int(*t));
    b.AddSlice({.ts_ns = *ts,
                .dur_ns = d.value_or(0),
                .track_id = b.StreamTrack(TrackKind::kNpuStream, dev.value_or(device), s.value_or(0)),
                .name_id = b.Intern(row.Text(name).value_or("?")),
                .category_id = cat,
                .arg_set_id = b.args().Finish()});
    return Status::Ok();
  };
  return ctx->ForEachCsvRow(path, on_header, on_row);
}

class MsprofReader : public TraceReader {
 public:
  std::string_view name() const override { return "msprof"; }

  Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) override {
    std::optional<MsprofLayout> layout = FindMsprofLayout(path);
    if (!layout) {
      return InvalidInput("{}: not an msprof result (no mindstudio_profiler_output with msprof_*.json, "
                          "op_summary_*.csv or task_time_*.csv)",
                          path);
    }
    AscendImportContext ctx(builder, options);
    ctx.device = layout->device;
    if (!layout->info_json.empty()) {
      ctx.Attempt(ReadProfilerInfoJson(layout->info_json, &ctx));
    } else {
      ctx.Missing("device_N/info.json.N");
    }
    const bool full = !options.summary_tables_only;
    if (full) {
      // Split timelines are read one after another into the same model; flows that cross a
      // slice boundary still bind (flow endpoints are resolved when the model is finished).
      for (const std::string& t : layout->timelines) RETURN_IF_ERROR(NewJsonTraceReader()->Read(t, options, builder));
      if (layout->timelines.empty()) ctx.Missing("msprof_*.json");
    }
    // Without a timeline, task_time's rows are the device tasks op_summary then annotates.
    if (full && layout->timelines.empty()) {
      for (const std::string& f : layout->task_time) ctx.Attempt(ReadTaskTime(f, &ctx));
    }
    DeviceTaskIndex index(builder->trace());
    if (full) {
      for (const std::string& f : layout->op_summary) ctx.Attempt(ReadKernelTable(f, &ctx, &index));
      if (layout->op_summary.empty()) ctx.Missing("op_summary_*.csv");
      for (const std::string& f : layout->op_statistic) ctx.Attempt(ReadOpStatistic(f, &ctx));
      for (const std::string& f : layout->api_statistic) ctx.Attempt(ReadApiStatistic(f, &ctx));
    }
    if (!layout->communication.empty()) {
      DeviceTaskIndex comm_index(builder->trace());
      ctx.Attempt(ReadCommunicationJson(layout->communication, &ctx, &comm_index));
    }
    if (!layout->communication_matrix.empty()) {
      ctx.Attempt(ReadCommunicationMatrixJson(layout->communication_matrix, &ctx));
    }
    if (full) RunAscendCrossChecks(&ctx);
    RETURN_IF_ERROR(ctx.limit_status());
    builder->SetMetadataString(meta::kSourceFormat, "msprof");
    builder->SetMetadataString(meta::kSourcePath, layout->root);
    ctx.Finish();
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<TraceReader> NewMsprofReader() { return std::make_unique<MsprofReader>(); }

}  // namespace cprof
