// The JSON TraceReader: resolves torch_npu folders, streams the file through the import
// pipeline into the translator, and sizes the tables up front from the file size.
#include "import/json/json_trace_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "base/byte_source.h"
#include "import/import_memory.h"
#include "import/json/buffer_pool.h"
#include "import/json/event_translator.h"
#include "import/json/import_pipeline.h"
#include "import/json/json_event_parser.h"
#include "import/json/top_level_value.h"
#include "import/trace_format.h"

namespace cprof {
namespace {

constexpr uint64_t kMaxProfilerInfoBytes = 16u << 20;

// torch_npu writes the rank into profiler_info_<rank>.json beside ASCEND_PROFILER_OUTPUT.
int64_t TorchNpuRank(const std::string& trace_view) {
  namespace fs = std::filesystem;
  const fs::path file(trace_view);
  if (file.filename() != "trace_view.json") return -1;
  fs::path dir = file.parent_path();
  if (dir.filename() == "ASCEND_PROFILER_OUTPUT") dir = dir.parent_path();
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("profiler_info", 0) != 0 || e.path().extension() != ".json") continue;
    auto text = ReadWholeFile(e.path().string(), kMaxProfilerInfoBytes);  // a few KB when genuine
    if (!text.ok()) continue;
    auto value = json::ParseTopLevelValue(*text);
    if (!value.ok()) continue;
    if (auto rank = value->FindInt("rank_id"); rank && *rank >= 0) return *rank;
  }
  return -1;
}

#define CPROF_JSON_ADVISE_COLUMN(type, name, def, doc) advise(t.slices.name);

// Reserves table capacity for a file of `bytes` (untouched capacity costs address space, not
// memory), so the columns do not reallocate, and briefly double, while a large trace streams in.
void ReserveFor(TraceBuilder* builder, uint64_t bytes) {
  constexpr uint64_t kBytesPerSlice = 200, kBytesPerArg = 40;
  Trace& t = builder->trace();
  t.slices.Reserve(bytes / kBytesPerSlice);
  t.args.key_id.reserve(bytes / kBytesPerArg);
  t.args.value.reserve(bytes / kBytesPerArg);
  auto advise = [](auto& column) { json::AdviseHugePages(column.data(), column.capacity() * sizeof(column[0])); };
  CPROF_SLICE_COLUMNS(CPROF_JSON_ADVISE_COLUMN)
  advise(t.args.key_id);
  advise(t.args.value);
}

class JsonTraceReader : public TraceReader {
 public:
  std::string_view name() const override { return "json"; }
  Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) override {
    JsonReadInfo info;
    return ReadJsonTrace(path, options, builder, &info);
  }
};

}  // namespace

Status ReadJsonTrace(const std::string& path, const ImportOptions& options, TraceBuilder* builder,
                     JsonReadInfo* info) {
  std::string file = path;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    file = ResolveTorchNpuFolder(path);
    if (file.empty()) {
      return InvalidInput("{}: a directory without trace_view.json (expected a torch_npu *_ascend_pt folder)", path);
    }
  }
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(file, options.decompression));
  json::EventTranslator translator(builder, file, source->compressed());
  if (int64_t rank = TorchNpuRank(file); rank >= 0) translator.metadata().SetRankHint(rank);
  // Compressed traces expand about tenfold; a low estimate only means some reallocation.
  uint64_t json_bytes = source->compressed() ? source->file_size() * 8 : source->file_size();
  // Reservations are address space until written, but they must not exceed what the memory limit
  // lets the trace hold (with overcommit off, a 10 GB file's reservation alone would fail).
  if (options.max_memory_bytes != 0) json_bytes = std::min(json_bytes, options.max_memory_bytes);
  ReserveFor(builder, json_bytes);
  translator.Reserve(json_bytes);

  json::PipelineResult result;
  RETURN_IF_ERROR(json::RunImportPipeline(
      source.get(), {.threads = options.threads, .max_chunk_bytes = options.max_memory_bytes},
      [&](const json::ParsedBatch& batch) {
        RETURN_IF_ERROR(translator.Apply(batch));
        return CheckImportMemory(builder->trace(), options, file);
      },
      &result));
  translator.metadata().SetObjectForm(result.object_form);
  if (result.unterminated_array) builder->stats().Add(ImportStat::json_unterminated_array);
  RETURN_IF_ERROR(translator.Finish());
  info->file = file;
  info->events = result.events;
  info->json_bytes = result.bytes;
  return Status::Ok();
}

std::string JsonParserImplementation() { return json::SimdjsonImplementation(); }

std::unique_ptr<TraceReader> NewJsonTraceReader() { return std::make_unique<JsonTraceReader>(); }

}  // namespace cprof
