// memory_record.csv, npu_module_mem.csv and operator_memory.csv.
#include "import/ascend/memory_tables_reader.h"

#include <cmath>
#include <map>

namespace cprof {

int64_t ParseAscendDevice(std::optional<std::string_view> text, int64_t fallback) {
  if (!text) return fallback;
  if (text->starts_with("CPU")) return -1;
  size_t colon = text->find(':');
  if (colon != std::string_view::npos) {
    if (auto v = ParseCsvInt(text->substr(colon + 1))) return *v;
  }
  if (auto v = ParseCsvInt(*text)) return *v;
  return fallback;
}

namespace {

// A counter track named `name` under the device (or the host, device -1), in MB.
TrackId MemoryCounter(TraceBuilder& b, int64_t device, const std::string& name,
                      std::map<std::pair<int64_t, std::string>, TrackId>* cache) {
  auto [it, inserted] = cache->try_emplace({device, name}, kNoTrack);
  if (inserted) {
    TrackId parent = device >= 0 ? b.DeviceTrack(device) : kNoTrack;
    it->second = b.ChildTrack(parent, TrackKind::kCounter, b.Intern(name));
    b.tracks().unit_id[Index(it->second)] = b.Intern("MB");
  }
  return it->second;
}

}  // namespace

Status ReadMemoryRecord(const std::string& path, AscendImportContext* ctx) {
  TraceBuilder& b = ctx->b();
  int comp = -1, ts_col = -1, dev_col = -1;
  std::vector<std::pair<int, std::string>> values;  // column, display suffix
  std::map<std::pair<int64_t, std::string>, TrackId> tracks;
  const int64_t fallback = ctx->DeviceForNewTracks();
  auto on_header = [&](const CsvHeader& h) -> Status {
    ASSIGN_OR_RETURN(ts_col, h.Require({"Timestamp(us)", "Timestamp"}));
    comp = h.Find({"Component"});
    dev_col = h.Find({"Device Type", "Device", "Device_id"});
    for (const char* c : {"Total Allocated(MB)", "Total Reserved(MB)", "Total Active(MB)"}) {
      if (int col = h.Find({c}); col >= 0) values.emplace_back(col, c);
    }
    if (values.empty()) return h.Require({"Total Allocated(MB)", "Total Reserved(MB)"}).status();
    return Status::Ok();
  };
  auto on_row = [&](const CsvRow& row) -> Status {
    ASSIGN_OR_RETURN(std::optional<int64_t> ts, row.MicrosNs(ts_col));
    if (!ts) return row.BadCell(ts_col, "expected a timestamp");
    std::string component(row.Text(comp).value_or("memory"));
    int64_t device = ParseAscendDevice(row.Text(dev_col), fallback);
    for (const auto& [col, label] : values) {
      ASSIGN_OR_RETURN(std::optional<double> v, row.Double(col));
      if (!v) continue;
      b.AddCounter(MemoryCounter(b, device, component + " " + label, &tracks), *ts, *v);
    }
    return Status::Ok();
  };
  return ctx->ForEachCsvRow(path, on_header, on_row);
}

Status ReadNpuModuleMem(const std::string& path, AscendImportContext* ctx) {
  TraceBuilder& b = ctx->b();
  int comp = -1, ts_col = -1, val = -1, dev_col = -1;
  std::map<std::pair<int64_t, std::string>, TrackId> tracks;
  const int64_t fallback = ctx->DeviceForNewTracks();
  auto on_header = [&](const CsvHeader& h) -> Status {
    ASSIGN_OR_RETURN(comp, h.Require({"Component"}));
    ASSIGN_OR_RETURN(ts_col, h.Require({"Timestamp(us)", "Timestamp"}));
    ASSIGN_OR_RETURN(val, h.Require({"Total Reserved(MB)", "Total Reserved(KB)"}));
    dev_col = h.Find({"Device", "Device Type", "Device_id"});
    return Status::Ok();
  };
  auto on_row = [&](const CsvRow& row) -> Status {
    ASSIGN_OR_RETURN(std::optional<int64_t> ts, row.MicrosNs(ts_col));
    ASSIGN_OR_RETURN(std::optional<double> v, row.Double(val));
    if (!ts || !v) return Status::Ok();
    std::string name = "module " + std::string(row.Text(comp).value_or("?")) + " Total Reserved(MB)";
    b.AddCounter(MemoryCounter(b, ParseAscendDevice(row.Text(dev_col), fallback), name, &tracks), *ts, *v);
    return Status::Ok();
  };
  return ctx->ForEachCsvRow(path, on_header, on_row);
}

Status ReadOperatorMemory(const std::string& path, AscendImportContext* ctx) {
  TraceBuilder& b = ctx->b();
  int name_col = -1, size_col = -1, alloc_col = -1, release_col = -1, dev_col = -1;
  int alloc_total = -1, alloc_reserved = -1, release_total = -1, release_reserved = -1;
  const int64_t fallback = ctx->DeviceForNewTracks();
  const StringId cat = b.Intern("operator_memory"), track_name = b.Intern("operator memory");
  const StringId k_size = b.Intern("Size(KB)");
  constexpr double kMB = 1024.0 * 1024.0;
  auto on_header = [&](const CsvHeader& h) -> Status {
    ASSIGN_OR_RETURN(name_col, h.Require({"Name"}));
    ASSIGN_OR_RETURN(size_col, h.Require({"Size(KB)"}));
    ASSIGN_OR_RETURN(alloc_col, h.Require({"Allocation Time(us)"}));
    release_col = h.Find({"Release Time(us)"});
    alloc_total = h.Find({"Allocation Total Allocated(MB)"});
    alloc_reserved = h.Find({"Allocation Total Reserved(MB)"});
    release_total = h.Find({"Release Total Allocated(MB)"});
    release_reserved = h.Find({"Release Total Reserved(MB)"});
    dev_col = h.Find({"Device Type", "Device"});
    return Status::Ok();
  };
  auto mb_to_bytes = [&](std::optional<double> mb) { return mb ? static_cast<int64_t>(std::llround(*mb * kMB)) : kUnknown; };
  auto on_row = [&](const CsvRow& row) -> Status {
    ASSIGN_OR_RETURN(std::optional<double> kb, row.Double(size_col));
    ASSIGN_OR_RETURN(std::optional<int64_t> alloc, row.MicrosNs(alloc_col));
    ASSIGN_OR_RETURN(std::optional<int64_t> release, row.MicrosNs(release_col));
    ASSIGN_OR_RETURN(std::optional<double> at, row.Double(alloc_total));
    ASSIGN_OR_RETURN(std::optional<double> ar, row.Double(alloc_reserved));
    ASSIGN_OR_RETURN(std::optional<double> rt, row.Double(release_total));
    ASSIGN_OR_RETURN(std::optional<double> rr, row.Double(release_reserved));
    if (!kb || !alloc) return row.BadCell(alloc ? size_col : alloc_col, "expected a size and an allocation time");
    int64_t device = ParseAscendDevice(row.Text(dev_col), fallback);
    TrackId dev_track = device >= 0 ? b.DeviceTrack(device) : b.ProcessTrack(0);
    int64_t bytes = static_cast<int64_t>(std::llround(*kb * 1024.0));
    b.AddMemoryEvent({.ts_ns = *alloc,
                      .track_id = dev_track,
                      .device = device,
                      .bytes = bytes,
                      .total_allocated = mb_to_bytes(at),
                      .total_reserved = mb_to_bytes(ar)});
    if (release) {
      b.AddMemoryEvent({.ts_ns = *release,
                        .track_id = dev_track,
                        .device = device,
                        .bytes = -bytes,
                        .total_allocated = mb_to_bytes(rt),
                        .total_reserved = mb_to_bytes(rr)});
    }
    b.args().Add(k_size, Value::Double(*kb));
    b.AddSlice({.ts_ns = *alloc,
                .dur_ns = release && *release >= *alloc ? *release - *alloc : 0,
                .track_id = b.ChildTrack(dev_track, TrackKind::kAsync, track_name),
                .name_id = b.Intern(row.Text(name_col).value_or("?")),
                .category_id = cat,
                .arg_set_id = b.args().Finish()});
    return Status::Ok();
  };
  return ctx->ForEachCsvRow(path, on_header, on_row);
}

}  // namespace cprof
