// The torch_npu folder reader: trace_view.json plus every side table.
#include "import/ascend/ascend_pt_reader.h"

#include "import/ascend/ascend_cross_checks.h"
#include "import/ascend/ascend_db_reader.h"
#include "import/ascend/ascend_import_context.h"
#include "import/ascend/ascend_json_reader.h"
#include "import/ascend/ascend_layout.h"
#include "import/ascend/kernel_table_reader.h"
#include "import/ascend/memory_tables_reader.h"
#include "import/ascend/summary_tables_reader.h"
#include "import/json/json_trace_reader.h"

namespace cprof {
namespace {

Status ReadTextExport(const AscendPtLayout& layout, AscendImportContext* ctx) {
  TraceBuilder& b = ctx->b();
  const bool full = !ctx->options().summary_tables_only;
  if (full) {
    std::string trace_view = layout.File("trace_view.json");
    if (!trace_view.empty()) {
      // The primary source: an error here is the import's error.
      RETURN_IF_ERROR(NewJsonTraceReader()->Read(trace_view, ctx->options(), &b));
    } else {
      ctx->Missing("trace_view.json");
    }
  }
  DeviceTaskIndex index(b.trace());
  using Reader = Status (*)(const std::string&, AscendImportContext*);
  struct Side {
    const char* file;
    bool summary;  // also read in summary_tables_only mode
    Reader read;
  };
  // kernel_details.csv and communication.json need the task index; the rest do not.
  static constexpr Side kSides[] = {
      {"step_trace_time.csv", true, ReadStepTraceTime},
      {"communication_matrix.json", true, ReadCommunicationMatrixJson},
      {"op_statistic.csv", false, ReadOpStatistic},
      {"api_statistic.csv", false, ReadApiStatistic},
      {"operator_details.csv", false, ReadOperatorDetails},
      {"memory_record.csv", false, ReadMemoryRecord},
      {"operator_memory.csv", false, ReadOperatorMemory},
      {"npu_module_mem.csv", false, ReadNpuModuleMem},
  };
  if (full) {
    std::string kd = layout.File("kernel_details.csv");
    if (kd.empty()) {
      ctx->Missing("kernel_details.csv");
    } else {
      ctx->Attempt(ReadKernelTable(kd, ctx, &index));
    }
  }
  if (std::string comm = layout.File("communication.json"); !comm.empty()) {
    // Its own index: the HCCL op slices that kernel_details.csv claimed are claimable again.
    DeviceTaskIndex comm_index(b.trace());
    ctx->Attempt(ReadCommunicationJson(comm, ctx, &comm_index));
  } else {
    ctx->Missing("communication.json");
  }
  for (const Side& s : kSides) {
    if (!full && !s.summary) continue;
    std::string path = layout.File(s.file);
    if (path.empty()) {
      ctx->Missing(s.file);
      continue;
    }
    ctx->Attempt(s.read(path, ctx));
  }
  if (full) RunAscendCrossChecks(ctx);
  b.SetMetadataString("export_type", "text");
  return Status::Ok();
}

class AscendPtReader : public TraceReader {
 public:
  std::string_view name() const override { return "ascend_pt"; }

  Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) override {
    std::optional<AscendPtLayout> layout = FindAscendPtLayout(path);
    if (!layout) {
      return InvalidInput("{}: not a torch_npu result (no ASCEND_PROFILER_OUTPUT with trace_view.json, its "
                          "tables or an ascend_pytorch_profiler .db)",
                          path);
    }
    AscendImportContext ctx(builder, options);
    ctx.rank = layout->rank_from_file_name;
    if (!layout->profiler_info.empty()) {
      ctx.Attempt(ReadProfilerInfoJson(layout->profiler_info, &ctx));
    } else {
      ctx.Missing("profiler_info.json");
    }
    if (layout->HasTextExport()) {
      if (!layout->profiler_metadata.empty()) {
        ctx.Attempt(ReadProfilerMetadataJson(layout->profiler_metadata, &ctx));
      } else {
        ctx.Missing("profiler_metadata.json");
      }
      RETURN_IF_ERROR(ReadTextExport(*layout, &ctx));
    } else {
      RETURN_IF_ERROR(ReadAscendDbExport(*layout, &ctx));
    }
    RETURN_IF_ERROR(ctx.limit_status());
    builder->SetMetadataString(meta::kSourceFormat, "torch_npu");
    builder->SetMetadataString(meta::kSourcePath, layout->root);
    ctx.Finish();
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<TraceReader> NewAscendPtReader() { return std::make_unique<AscendPtReader>(); }

}  // namespace cprof
