// Nsight Systems SQLite import: one pass per table, names interned once from StringIds.
#include "import/nsys/nsys_sqlite_reader.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "import/import_memory.h"
#include "import/nsys/nsys_schema.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {
namespace {

class NsysImport {
 public:
  NsysImport(const SqliteDb& db, const ImportOptions& options, TraceBuilder* b)
      : db_(db), options_(options), b_(*b) {}

  Status Run() {
    // A table of a schema this reader does not know (a column renamed, another program's database
    // that borrowed the names) is an error naming table and column, not rows of NULLs read as 0.
    RETURN_IF_ERROR(RequireColumns("StringIds", {"id", "value"}));
    for (const char* table :
         {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_KERNEL",
          "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
          "OSRT_API"}) {
      if (db_.HasTable(table)) RETURN_IF_ERROR(RequireColumns(table, {"start", "end"}));
    }
    for (const char* table : {"NVTX_EVENTS", "COMPOSITE_EVENTS"}) {
      if (db_.HasTable(table)) RETURN_IF_ERROR(RequireColumns(table, {"start"}));
    }
    RETURN_IF_ERROR(LoadStrings());
    RETURN_IF_ERROR(LoadNames());
    // Each table this reader knows, the table it also needs, and its pass.
    struct Pass {
      const char* table;
      const char* also;
      Status (NsysImport::*read)();
    };
    static constexpr Pass kPasses[] = {
        {"CUPTI_ACTIVITY_KIND_RUNTIME", nullptr, &NsysImport::ReadRuntime},
        {"CUPTI_ACTIVITY_KIND_DRIVER", nullptr, &NsysImport::ReadDriver},
        {"CUPTI_ACTIVITY_KIND_KERNEL", nullptr, &NsysImport::ReadKernels},
        {"CUPTI_ACTIVITY_KIND_MEMCPY", nullptr, &NsysImport::ReadMemcpy},
        {"CUPTI_ACTIVITY_KIND_MEMSET", nullptr, &NsysImport::ReadMemset},
        {"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", nullptr, &NsysImport::ReadSync},
        {"NVTX_EVENTS", nullptr, &NsysImport::ReadNvtx},
        {"OSRT_API", nullptr, &NsysImport::ReadOsrt},
        {"COMPOSITE_EVENTS", "SAMPLING_CALLCHAINS", &NsysImport::ReadSamples},
    };
    bool any = false;
    for (const Pass& pass : kPasses) {
      if (!db_.HasTable(pass.table) || (pass.also && !db_.HasTable(pass.also))) continue;
      RETURN_IF_ERROR((this->*pass.read)());
      any = true;
    }
    if (!any) {
      return InvalidInput("{}: an Nsight Systems export with no CUDA, NVTX, OS runtime or sampling tables",
                          db_.path());
    }
    ApplyTrackNames();
    return ReadMetadata();
  }

 private:
  Status RequireColumns(std::string_view table, std::initializer_list<std::string_view> columns) const {
    for (std::string_view c : columns) {
      if (!db_.HasColumn(table, c)) {
        return InvalidInput("{}: table {} has no column '{}': not an Nsight Systems schema this reader knows",
                            db_.path(), table, c);
      }
    }
    return Status::Ok();
  }

  // The next row of `st`; every kMemoryCheckRows rows also the memory limit.
  StatusOr<bool> Step(SqliteStatement& st) {
    if (++rows_ % kMemoryCheckRows == 0) RETURN_IF_ERROR(CheckImportMemory(b_.trace(), options_, db_.path()));
    return st.Step();
  }

  Status LoadStrings() {
    ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("StringIds", {"id", "value"}));
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t id = st.Int(0);
      if (id < 0) continue;
      if (static_cast<uint64_t>(id) >= strings_.size()) {
        if (id > (int64_t{1} << 28)) return InvalidInput("{}: StringIds id {} out of range", db_.path(), id);
        strings_.resize(static_cast<size_t>(id) + 1, kNoString);
      }
      strings_[static_cast<size_t>(id)] = b_.Intern(st.Text(1));
    }
    return Status::Ok();
  }

  // The interned string for a StringIds id; '?' (counted) when the id is unknown.
  StringId Str(int64_t id) {
    if (id >= 0 && static_cast<uint64_t>(id) < strings_.size() && strings_[id] != kNoString)
      return strings_[id];
    b_.stats().Add(ImportStat::nsys_unknown_string);
    return b_.Intern("?");
  }
  // Name from a nameId column or, in old schemas, a text column.
  StringId NameFrom(const SqliteStatement& st, int id_col, int text_col) {
    if (!st.IsNull(id_col)) return Str(st.Int(id_col));
    if (text_col >= 0 && !st.IsNull(text_col)) return b_.Intern(st.Text(text_col));
    b_.stats().Add(ImportStat::nsys_unknown_string);
    return b_.Intern("?");
  }

  Status LoadNames() {
    if (db_.HasTable("PROCESSES")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("PROCESSES", {"globalPid", "pid", "name"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        if (!st.IsNull(2)) process_names_[nsys::PidOf(st.Int(0))] = std::string(st.Text(2));
      }
    }
    if (db_.HasTable("ThreadNames")) {
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("ThreadNames", {"nameId", "globalTid"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        if (!st.IsNull(0) && !st.IsNull(1)) thread_names_[st.Int(1)] = Str(st.Int(0));
      }
    }
    return Status::Ok();
  }

  TrackId Thread(int64_t global_tid) {
    TrackId t = b_.ThreadTrack(nsys::PidOf(global_tid), nsys::TidOf(global_tid));
    threads_seen_.try_emplace(global_tid, t);
    return t;
  }

  void ApplyTrackNames() {
    TrackTable& tracks = b_.tracks();
    for (auto [gtid, track] : threads_seen_) {
      if (auto it = thread_names_.find(gtid); it != thread_names_.end())
        tracks.name_id[Index(track)] = it->second;
      TrackId proc = tracks.parent_id[Index(track)];
      if (proc == kNoTrack) continue;
      if (auto it = process_names_.find(nsys::PidOf(gtid)); it != process_names_.end()) {
        tracks.name_id[Index(proc)] = b_.Intern(it->second);
      }
    }
  }

  // Start/end of the current row; false (counted) when the end is missing, either is not a number,
// or the end is before the start.
  bool Span(const SqliteStatement& st, int start_col, int end_col, int64_t* ts, int64_t* dur) {
    if (st.IsNull(start_col) || st.IsNull(end_col)) {
      b_.stats().Add(ImportStat::nsys_missing_end);
      return false;
    }
    if (!st.IsNumeric(start_col) || !st.IsNumeric(end_col)) {  // text or a blob: Int() would read 0
      b_.stats().Add(ImportStat::nsys_bad_timestamp);
      return false;
    }
    *ts = st.Int(start_col);
    if (__builtin_sub_overflow(st.Int(end_col), *ts, dur)) {  // e.g. INT64_MIN - INT64_MAX
      b_.stats().Add(ImportStat::timestamp_out_of_range);
      return false;
    }
    if (*dur < 0) {
      b_.stats().Add(ImportStat::negative_duration);
      return false;
    }
    return true;
  }

  Status ReadRuntime() { return ReadApi("CUPTI_ACTIVITY_KIND_RUNTIME", "cuda_runtime"); }
  Status ReadDriver() { return ReadApi("CUPTI_ACTIVITY_KIND_DRIVER", "cuda_driver"); }
  Status ReadApi(const char* table, const char* category) {
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns(table, {"start", "end", "globalTid", "correlationId", "nameId", "name",
                                               "returnValue"}));
    const StringId cat = b_.Intern(category);
    const StringId k_corr = b_.Intern("correlation");
    const StringId k_ret = b_.Intern("return_value");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t ts, dur;
      if (!Span(st, 0, 1, &ts, &dur)) continue;
      int64_t gtid = st.IsNull(2) ? 0 : st.Int(2);
      StringId raw = NameFrom(st, 4, 5);
      std::string_view name = nsys::StripApiVersion(b_.trace().Str(raw));
      auto corr = st.OptInt(3);
      if (corr) b_.args().Add(k_corr, Value::Int(*corr));
      if (auto ret = st.OptInt(6); ret && *ret != 0) b_.args().Add(k_ret, Value::Int(*ret));
      SliceId id = b_.AddSlice({.ts_ns = ts,
                                .dur_ns = dur,
                                .track_id = Thread(gtid),
                                .name_id = b_.Intern(name),
                                .category_id = cat,
                                .arg_set_id = b_.args().Finish(),
                                .correlation_id = corr.value_or(kNoCorrelation)});
      if (corr && id != kNoSlice) launches_[{nsys::PidOf(gtid), *corr}] = id;
    }
    return Status::Ok();
  }

  // Links a GPU activity to the API call that launched it.
  void Launch(int64_t global_pid, std::optional<int64_t> corr, SliceId gpu) {
    if (!corr || gpu == kNoSlice) return;
    auto it = launches_.find({nsys::PidOf(global_pid), *corr});
    if (it == launches_.end()) {
      b_.stats().Add(ImportStat::nsys_unmatched_correlation);
      return;
    }
    b_.AddFlow(it->second, gpu, FlowKind::kLaunch, launch_name_);
  }

  Status ReadKernels() {
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("CUPTI_ACTIVITY_KIND_KERNEL",
                                       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                        "demangledName", "shortName", "gridX", "gridY", "gridZ", "blockX",
                                        "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                                        "dynamicSharedMemory", "contextId"}));
    const StringId cat = b_.Intern("kernel");
    const StringId k_corr = b_.Intern("correlation"), k_short = b_.Intern("short_name"),
                   k_grid = b_.Intern("grid"), k_block = b_.Intern("block"),
                   k_regs = b_.Intern("registers per thread"), k_shared = b_.Intern("shared memory"),
                   k_device = b_.Intern("device"), k_stream = b_.Intern("stream"),
                   k_ctx = b_.Intern("context");
    launch_name_ = b_.Intern("ac2g");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t ts, dur;
      if (!Span(st, 0, 1, &ts, &dur)) continue;
      int64_t device = st.OptInt(2).value_or(0), stream = st.OptInt(3).value_or(0);
      StringId name = !st.IsNull(6) ? Str(st.Int(6)) : NameFrom(st, 7, -1);
      auto corr = st.OptInt(4);
      ArgTable& a = b_.args();
      if (corr) a.Add(k_corr, Value::Int(*corr));
      if (!st.IsNull(7)) a.Add(k_short, Value::String(Str(st.Int(7))));
      if (!st.IsNull(8)) {
        a.Add(k_grid,
              Value::String(b_.Intern(fmt::format("[{}, {}, {}]", st.Int(8), st.Int(9), st.Int(10)))));
        a.Add(k_block,
              Value::String(b_.Intern(fmt::format("[{}, {}, {}]", st.Int(11), st.Int(12), st.Int(13)))));
      }
      if (!st.IsNull(14)) a.Add(k_regs, Value::Int(st.Int(14)));
      if (!st.IsNull(15)) a.Add(k_shared, Value::Int(st.Int(15) + st.OptInt(16).value_or(0)));
      a.Add(k_device, Value::Int(device));
      a.Add(k_stream, Value::Int(stream));
      if (!st.IsNull(17)) a.Add(k_ctx, Value::Int(st.Int(17)));
      AddGpuWork(ts, dur, device, stream, name, cat, a.Finish(), corr, st.OptInt(5).value_or(0));
    }
    return Status::Ok();
  }

  // A slice of GPU work on its stream's track, linked to the API call of process `pid` that
  // launched it (by correlation id).
  void AddGpuWork(int64_t ts, int64_t dur, int64_t device, int64_t stream, StringId name, StringId cat,
                  ArgSetId args, std::optional<int64_t> corr, int64_t pid) {
    SliceId id = b_.AddSlice({.ts_ns = ts,
                              .dur_ns = dur,
                              .track_id = b_.StreamTrack(TrackKind::kGpuStream, device, stream),
                              .name_id = name,
                              .category_id = cat,
                              .arg_set_id = args,
                              .correlation_id = corr.value_or(kNoCorrelation)});
    Launch(pid, corr, id);
  }

  Status ReadMemcpy() {
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("CUPTI_ACTIVITY_KIND_MEMCPY",
                                       {"start", "end", "deviceId", "streamId", "correlationId", "globalPid",
                                        "bytes", "copyKind", "srcKind", "dstKind"}));
    const StringId k_kind = b_.Intern("copy_kind");
    return ReadCopyRows(st, b_.Intern("gpu_memcpy"), [&](ArgTable& a) {
      std::string_view kind = nsys::MemcpyKindName(st.OptInt(7).value_or(0));
      a.Add(k_kind, Value::String(b_.Intern(kind)));
      return b_.Intern(fmt::format("Memcpy {}", kind));
    });
  }

  Status ReadMemset() {
    ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("CUPTI_ACTIVITY_KIND_MEMSET",
                                                           {"start", "end", "deviceId", "streamId",
                                                            "correlationId", "globalPid", "bytes", "value"}));
    const StringId name = b_.Intern("Memset"), k_value = b_.Intern("value");
    return ReadCopyRows(st, b_.Intern("gpu_memset"), [&](ArgTable& a) {
      if (!st.IsNull(7)) a.Add(k_value, Value::Int(st.Int(7)));
      return name;
    });
  }

  // The rows of a memcpy or memset table: columns 0-6 are start, end, deviceId, streamId,
  // correlationId, globalPid, bytes; `table_args(args)` adds the table's own arguments and
  // returns the slice's name.
  template <typename TableArgs>
  Status ReadCopyRows(SqliteStatement& st, StringId cat, TableArgs&& table_args) {
    const StringId k_corr = b_.Intern("correlation"), k_bytes = b_.Intern("bytes"),
                   k_device = b_.Intern("device"), k_stream = b_.Intern("stream");
    if (launch_name_ == kEmptyString) launch_name_ = b_.Intern("ac2g");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t ts, dur;
      if (!Span(st, 0, 1, &ts, &dur)) continue;
      int64_t device = st.OptInt(2).value_or(0), stream = st.OptInt(3).value_or(0);
      auto corr = st.OptInt(4);
      ArgTable& a = b_.args();
      if (corr) a.Add(k_corr, Value::Int(*corr));
      if (!st.IsNull(6)) a.Add(k_bytes, Value::Int(st.Int(6)));
      StringId name = table_args(a);
      a.Add(k_device, Value::Int(device));
      a.Add(k_stream, Value::Int(stream));
      AddGpuWork(ts, dur, device, stream, name, cat, a.Finish(), corr, st.OptInt(5).value_or(0));
    }
    return Status::Ok();
  }

  // CUPTI synchronization records: the device-side span of a sync API call. Kept off the stream
  // tracks (they are waits, not GPU work) on one child track per device.
  Status ReadSync() {
    ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                                           {"start", "end", "deviceId", "streamId",
                                                            "correlationId", "syncType"}));
    const StringId cat = b_.Intern("cuda_sync"), track_name = b_.Intern("CUDA synchronization");
    const StringId k_corr = b_.Intern("correlation"), k_stream = b_.Intern("stream");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t ts, dur;
      if (!Span(st, 0, 1, &ts, &dur)) continue;
      int64_t device = st.OptInt(2).value_or(0);
      auto corr = st.OptInt(4);
      ArgTable& a = b_.args();
      if (corr) a.Add(k_corr, Value::Int(*corr));
      if (auto s = st.OptInt(3); s && *s != 0xFFFFFFFF && *s >= 0) a.Add(k_stream, Value::Int(*s));
      b_.AddSlice({.ts_ns = ts,
                   .dur_ns = dur,
                   .track_id = b_.ChildTrack(b_.DeviceTrack(device), TrackKind::kAsync, track_name),
                   .name_id = b_.Intern(nsys::SyncTypeName(st.OptInt(5).value_or(0))),
                   .category_id = cat,
                   .arg_set_id = a.Finish(),
                   .correlation_id = corr.value_or(kNoCorrelation)});
    }
    return Status::Ok();
  }

  Status ReadNvtx() {
    // Domain names first (created by eventType 75 rows: domainId + text).
    std::unordered_map<int64_t, StringId> domains;
    {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("NVTX_EVENTS", {"domainId", "text", "textId"},
                                         fmt::format("WHERE eventType = {}", +nsys::kNvtxDomainCreate)));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        if (st.IsNull(0)) continue;
        domains[st.Int(0)] = !st.IsNull(1)   ? b_.Intern(st.Text(1))
                             : !st.IsNull(2) ? Str(st.Int(2))
                                             : kEmptyString;
      }
    }
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("NVTX_EVENTS", {"start", "end", "eventType", "text", "textId",
                                                       "globalTid", "domainId", "category", "endGlobalTid"}));
    const StringId cat = b_.Intern("nvtx"), k_domain = b_.Intern("domain"),
                   k_category = b_.Intern("category"), async_name = b_.Intern("NVTX start/end ranges");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t type = st.OptInt(2).value_or(0);
      if (type == nsys::kNvtxThread) {  // nvtxNameOsThread: names the thread
        if (!st.IsNull(5) && (!st.IsNull(3) || !st.IsNull(4))) {
          thread_names_[st.Int(5)] = !st.IsNull(3) ? b_.Intern(st.Text(3)) : Str(st.Int(4));
          Thread(st.Int(5));
        }
        continue;
      }
      if (type != nsys::kNvtxPushPopRange && type != nsys::kNvtxStartEndRange && type != nsys::kNvtxMark)
        continue;
      int64_t ts = st.OptInt(0).value_or(0), dur = 0;
      if (type != nsys::kNvtxMark && !Span(st, 0, 1, &ts, &dur)) continue;
      StringId name = !st.IsNull(3) ? b_.Intern(st.Text(3)) : !st.IsNull(4) ? Str(st.Int(4)) : kEmptyString;
      int64_t gtid = st.OptInt(5).value_or(0);
      ArgTable& a = b_.args();
      if (auto d = st.OptInt(6); d && *d != 0) {
        auto it = domains.find(*d);
        a.Add(k_domain, it != domains.end() ? Value::String(it->second) : Value::Int(*d));
      }
      if (auto c = st.OptInt(7); c && *c != 0) a.Add(k_category, Value::Int(*c));
      // Push/pop ranges nest on their thread; start/end ranges may overlap and cross threads.
      TrackId track = Thread(gtid);
      if (type == nsys::kNvtxStartEndRange) track = b_.ChildTrack(track, TrackKind::kAsync, async_name);
      b_.AddSlice({.ts_ns = ts,
                   .dur_ns = dur,
                   .track_id = track,
                   .name_id = name,
                   .category_id = cat,
                   .arg_set_id = a.Finish()});
    }
    return Status::Ok();
  }

  Status ReadOsrt() {
    ASSIGN_OR_RETURN(SqliteStatement st,
                     db_.SelectColumns("OSRT_API", {"start", "end", "globalTid", "nameId", "returnValue"}));
    const StringId cat = b_.Intern("osrt"), track_name = b_.Intern("OS runtime libraries");
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      int64_t ts, dur;
      if (!Span(st, 0, 1, &ts, &dur)) continue;
      // nsys draws these on their own row under the thread; they may straddle CUDA calls.
      TrackId track = b_.ChildTrack(Thread(st.OptInt(2).value_or(0)), TrackKind::kAsync, track_name);
      b_.AddSlice({.ts_ns = ts,
                   .dur_ns = dur,
                   .track_id = track,
                   .name_id = NameFrom(st, 3, -1),
                   .category_id = cat});
    }
    return Status::Ok();
  }

  // CPU samples: COMPOSITE_EVENTS (time, thread) with SAMPLING_CALLCHAINS (frames, depth 0 = leaf).
  Status ReadSamples() {
    std::unordered_map<int64_t, StackId> stacks;  // callchain id -> leaf stack entry
    {
      ASSIGN_OR_RETURN(
          SqliteStatement st,
          db_.SelectColumns("SAMPLING_CALLCHAINS", {"id", "symbol", "module", "originalIP", "stackDepth"},
                            "ORDER BY id, stackDepth DESC"));
      std::unordered_map<uint64_t, FrameId> frames;
      int64_t cur = -1;
      StackId parent = kNoStack;
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        int64_t id = st.Int(0);
        if (id != cur) {
          if (cur >= 0) stacks[cur] = parent;
          cur = id;
          parent = kNoStack;
        }
        uint64_t key = (static_cast<uint64_t>(st.Int(1)) << 32) ^ static_cast<uint64_t>(st.Int(2));
        auto [it, inserted] = frames.try_emplace(key, kNoFrame);
        if (inserted) {
          it->second = b_.AddFrame({.function_id = Str(st.Int(1)),
                                    .module_id = Str(st.Int(2)),
                                    .address = static_cast<uint64_t>(st.OptInt(3).value_or(0))});
        }
        parent = b_.AddStack(parent, it->second);
      }
      if (cur >= 0) stacks[cur] = parent;
    }
    ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns("COMPOSITE_EVENTS", {"id", "start", "globalTid"}));
    while (true) {
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (!row) break;
      auto it = stacks.find(st.Int(0));
      b_.AddSample({.ts_ns = st.Int(1),
                    .track_id = Thread(st.OptInt(2).value_or(0)),
                    .stack_id = it == stacks.end() ? kNoStack : it->second});
    }
    return Status::Ok();
  }

  Status ReadMetadata() {
    b_.SetMetadataString(meta::kSourceFormat, "nsys");
    for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
      if (!db_.HasTable(table)) continue;
      ASSIGN_OR_RETURN(SqliteStatement st, db_.SelectColumns(table, {"name", "value"}));
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        std::string_view key = st.Text(0);
        if (key == "EXPORT_PRODUCT_VERSION") b_.SetMetadataString("nsys_version", st.Text(1));
        if (key == "EXPORT_SCHEMA_VERSION") b_.SetMetadataString("nsys_schema_version", st.Text(1));
      }
    }
    if (db_.HasTable("TARGET_INFO_SESSION_START_TIME")) {
      ASSIGN_OR_RETURN(SqliteStatement st,
                       db_.SelectColumns("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}));
      ASSIGN_OR_RETURN(bool row, Step(st));
      if (row && !st.IsNull(0)) b_.SetMetadata(meta::kBaseTimeNs, Value::Int(st.Int(0)));
    }
    if (db_.HasTable("TARGET_INFO_GPU")) {
      ASSIGN_OR_RETURN(
          SqliteStatement st,
          db_.SelectColumns("TARGET_INFO_GPU", {"id", "name", "totalMemory", "smCount", "clockRate",
                                                "computeMajor", "computeMinor", "busLocation"}));
      std::string json = "[";
      while (true) {
        ASSIGN_OR_RETURN(bool row, Step(st));
        if (!row) break;
        if (json.size() > 1) json += ", ";
        std::string name;
        for (char c : st.Text(1)) {
          if (c == '"' || c == '\\') name += '\\';
          if (static_cast<unsigned char>(c) >= 0x20) name += c;
        }
        json +=
            fmt::format(R"({{"id": {}, "name": "{}", "totalGlobalMem": {}, "numSms": {}, "clockRate": {})",
                        st.OptInt(0).value_or(-1), name, st.OptInt(2).value_or(0), st.OptInt(3).value_or(0),
                        st.OptInt(4).value_or(0));
        if (!st.IsNull(5))
          json += fmt::format(R"(, "computeMajor": {}, "computeMinor": {})", st.Int(5), st.Int(6));
        json += "}";
      }
      json += "]";
      if (json.size() > 2) b_.SetMetadataString(meta::kDeviceProperties, json);
    }
    return Status::Ok();
  }

  static constexpr StringId kNoString{UINT32_MAX};

  const SqliteDb& db_;
  const ImportOptions& options_;
  TraceBuilder& b_;
  uint64_t rows_ = 0;
  std::vector<StringId> strings_;
  std::unordered_map<int64_t, std::string> process_names_;
  std::unordered_map<int64_t, StringId> thread_names_;
  std::unordered_map<int64_t, TrackId> threads_seen_;
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const {
      return std::hash<int64_t>()(p.first * 1000003 ^ p.second);
    }
  };
  std::unordered_map<std::pair<int64_t, int64_t>, SliceId, PairHash> launches_;  // (pid, correlation)
  StringId launch_name_ = kEmptyString;
};

class NsysSqliteReader : public TraceReader {
 public:
  std::string_view name() const override { return "nsys_sqlite"; }
  Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) override {
    ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(path));
    if (!db.HasTable("StringIds")) {
      return InvalidInput("{}: an SQLite database without a StringIds table is not an Nsight Systems export",
                          path);
    }
    NsysImport imp(db, options, builder);
    return imp.Run();
  }
};

}  // namespace

std::unique_ptr<TraceReader> NewNsysSqliteReader() { return std::make_unique<NsysSqliteReader>(); }

bool IsNsysDatabase(const std::string& path) {
  auto db = SqliteDb::Open(path);
  if (!db.ok() || !db->HasTable("StringIds")) return false;
  for (const std::string& t : db->Tables()) {
    if (t.starts_with("CUPTI_ACTIVITY_KIND_") || t == "NVTX_EVENTS" || t == "OSRT_API" ||
        t.starts_with("TARGET_INFO_") || t == "ANALYSIS_DETAILS") {
      return true;
    }
  }
  return false;
}

}  // namespace cprof
