// The Chrome JSON export: {"traceEvents": [...], ...metadata} in the dialect our JSON importer
// and the PyTorch tools read (Kineto's rows, flows, counters and "[memory]" events).
//
// Events, one per line: M (process/thread names and sort indices), X per slice (B for a slice
// that never ended, i for an instant on a process track), C per counter value, s/f per flow (f binds to its enclosing slice: "bp":
// "e"), and an "[memory]" instant per memory event. Timestamps are microseconds with the ns as
// three exact decimals, relative to "baseTimeNanoseconds" when the trace has one (as Kineto
// writes them). Samples and stacks have no Chrome form our importer reads; they are left out.
#include "export/chrome/chrome_json_writer.h"

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "export/chrome/chrome_rows.h"
#include "export/chrome/json_sink.h"

namespace cprof {
namespace {

void WriteValue(const Trace& trace, const Value& v, JsonSink* out) {
  switch (v.type) {
    case Value::Type::kNull: out->Raw("null"); break;
    case Value::Type::kInt: out->Int(v.i); break;
    case Value::Type::kUint: out->Uint(v.u); break;
    case Value::Type::kDouble: out->Double(v.d); break;
    case Value::Type::kString: out->String(trace.Str(v.s)); break;
    case Value::Type::kBool: out->Raw(v.b ? "true" : "false"); break;
  }
}

// Kineto's names for the metadata our JSON importer maps; metadata it derives itself is not
// written back (it would come back twice).
std::string_view TopLevelKey(std::string_view key) {
  if (key == meta::kDeviceProperties) return "deviceProperties";
  if (key == meta::kDistributedInfo) return "distributedInfo";
  if (key == meta::kBaseTimeNs) return "baseTimeNanoseconds";
  if (key == meta::kSourceFormat || key == meta::kSourcePath || key == meta::kRank || key == meta::kWorldSize ||
      key == "traceEvents") {
    return {};
  }
  return key;
}

// Top-level members from metadata, each followed by a comma (traceEvents comes last).
void WriteTopLevel(const Trace& trace, JsonSink* out) {
  // The last value of a key wins; keys keep the order of their first appearance.
  std::map<std::string_view, size_t> last;
  std::vector<std::string_view> order;
  for (size_t i = 0; i < trace.metadata.size(); ++i) {
    std::string_view key = TopLevelKey(trace.Str(trace.metadata.key_id[i]));
    if (key.empty()) continue;
    if (last.emplace(key, i).second) order.push_back(key);
    last[key] = i;
  }
  for (std::string_view key : order) {
    const Value& v = trace.metadata.value[last[key]];
    out->String(key);
    out->Char(':');
    const bool json_text = key == "deviceProperties" || key == "distributedInfo";
    if (json_text && v.type == Value::Type::kString && nlohmann::json::accept(trace.Str(v.s))) {
      out->Raw(trace.Str(v.s));
    } else {
      WriteValue(trace, v, out);
    }
    out->Raw(",\n");
  }
  // A rank known without distributedInfo still travels, the way Kineto carries it.
  if (!last.count("distributedInfo")) {
    auto rank = trace.Metadata(meta::kRank), world = trace.Metadata(meta::kWorldSize);
    if (rank && rank->type == Value::Type::kInt) {
      out->Raw("\"distributedInfo\":{\"rank\":");
      out->Int(rank->i);
      if (world && (world->type == Value::Type::kInt || world->type == Value::Type::kUint)) {
        out->Raw(",\"world_size\":");
        WriteValue(trace, *world, out);
      }
      out->Raw("},\n");
    }
  }
}

int64_t BaseTimeNs(const Trace& trace) {
  auto v = trace.Metadata(meta::kBaseTimeNs);
  if (v && v->type == Value::Type::kInt) return v->i;
  if (v && v->type == Value::Type::kUint && v->u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v->u);
  return 0;
}

// The flow category our importer maps back to `kind`, when the flow has no name of its own.
std::string_view FlowCategory(FlowKind kind) {
  switch (kind) {
    case FlowKind::kLaunch: return "ac2g";
    case FlowKind::kFwdBwd: return "fwdbwd";
    case FlowKind::kQueue: return "async_task_queue";
    case FlowKind::kHostToDevice: return "async_npu";
    case FlowKind::kOther: return "flow";
  }
  return "flow";
}

// A counter track as a C event name and value key that our importer turns back into the
// track's name and unit: "HBM 0/Read Read(MB/s)" with unit "MB/s" is name "HBM 0/Read",
// key "Read(MB/s)"; with no recognizable unit suffix, the key is "value".
std::pair<std::string, std::string> CounterNameAndKey(const Trace& trace, uint32_t track) {
  std::string name(trace.Str(trace.tracks.name_id[track]));
  const std::string_view unit = trace.Str(trace.tracks.unit_id[track]);
  const size_t space = name.rfind(' ');
  if (!unit.empty() && space != std::string::npos && space > 0) {
    const std::string_view last = std::string_view(name).substr(space + 1);
    if (last == unit || (last.size() > unit.size() + 2 && last.ends_with(std::string(unit) + ")") &&
                         last[last.size() - unit.size() - 2] == '(')) {
      return {name.substr(0, space), std::string(last)};
    }
  }
  return {std::move(name), "value"};
}

class ChromeWriter {
 public:
  ChromeWriter(const Trace& trace, JsonSink* out) : trace_(trace), out_(out), rows_(trace), base_(BaseTimeNs(trace)) {}

  Status Run() {
    out_->Char('{');
    WriteTopLevel(trace_, out_);
    out_->Raw("\"traceEvents\":");
    out_->BeginArray();
    rows_.WriteMetadataEvents(out_);
    for (uint32_t i = 0; i < trace_.slices.size(); ++i) Slice(i);
    RETURN_IF_ERROR(Counters());
    RETURN_IF_ERROR(Flows());
    RETURN_IF_ERROR(MemoryEvents());
    out_->Raw("\n]}\n");
    return Status::Ok();
  }

 private:
  void Ts(std::string_view key, int64_t ns) {
    out_->Raw(key);
    out_->Micros(ns);
  }
  void RowFields(ChromeRows::Row r) {
    out_->Raw(",\"pid\":");
    out_->Int(r.pid);
    out_->Raw(",\"tid\":");
    out_->Int(r.tid);
  }

  void Slice(uint32_t i) {
    const SliceTable& s = trace_.slices;
    out_->NextElement();
    // Zero-length slices on a process track are process instants ("s": "p"), or global ones
    // ("s": "g") on a process track without a pid (our importer's "Global instants").
    const uint32_t t = Index(s.track_id[i]);
    const bool process_instant =
        s.dur_ns[i] == 0 && t < trace_.tracks.size() && trace_.tracks.kind[t] == TrackKind::kProcess;
    if (process_instant) {
      out_->Raw(trace_.tracks.pid[t] == kUnknown ? "{\"ph\":\"i\",\"s\":\"g\"" : "{\"ph\":\"i\",\"s\":\"p\"");
    } else {
      out_->Raw(s.dur_ns[i] < 0 ? "{\"ph\":\"B\"" : "{\"ph\":\"X\"");
    }
    if (s.category_id[i] != kEmptyString) {
      out_->Raw(",\"cat\":");
      out_->String(trace_.Str(s.category_id[i]));
    }
    out_->Raw(",\"name\":");
    out_->String(trace_.Str(s.name_id[i]));
    RowFields(rows_.SliceRow(s.track_id[i]));
    Ts(",\"ts\":", s.ts_ns[i] - base_);
    if (s.dur_ns[i] >= 0 && !process_instant) Ts(",\"dur\":", s.dur_ns[i]);

    const ArgSetId set = s.arg_set_id[i];
    const bool has_args = set != kNoArgs && Index(set) < trace_.args.set_count();
    // The correlation id goes in as "correlation" unless an arg it was read from is there.
    bool correlation = s.correlation_id[i] != kNoCorrelation;
    if (correlation && has_args) {
      for (std::string_view key : {"correlation", "correlation_id", "connection_id", "External id", "external id"}) {
        if (trace_.SliceArg(i, key)) correlation = false;
      }
    }
    if (has_args || correlation) {
      out_->Raw(",\"args\":{");
      bool first = true;
      if (has_args) {
        for (uint32_t r = trace_.args.begin(set); r < trace_.args.end(set); ++r) {
          if (!first) out_->Char(',');
          first = false;
          out_->String(trace_.Str(trace_.args.key_id[r]));
          out_->Char(':');
          WriteValue(trace_, trace_.args.value[r], out_);
        }
      }
      if (correlation) {
        out_->Raw(first ? "\"correlation\":" : ",\"correlation\":");
        out_->Int(s.correlation_id[i]);
      }
      out_->Char('}');
    }
    out_->Raw("}");
  }

  Status Counters() {
    const CounterTable& c = trace_.counters;
    std::map<uint32_t, std::pair<std::string, std::string>> names;
    for (size_t i = 0; i < c.size(); ++i) {
      const uint32_t t = Index(c.track_id[i]);
      if (t >= trace_.tracks.size()) return Internal("counter row {}: track {} is outside the track table", i, t);
      auto it = names.find(t);
      if (it == names.end()) it = names.emplace(t, CounterNameAndKey(trace_, t)).first;
      out_->NextElement();
      out_->Raw("{\"ph\":\"C\",\"name\":");
      out_->String(it->second.first);
      out_->Raw(",\"pid\":");
      out_->Int(rows_.Pid(c.track_id[i]));
      Ts(",\"ts\":", c.ts_ns[i] - base_);
      out_->Raw(",\"args\":{");
      out_->String(it->second.second);
      out_->Char(':');
      out_->Double(c.value[i]);
      out_->Raw("}}");
    }
    return Status::Ok();
  }

  void FlowEvent(char ph, uint64_t id, std::string_view cat, uint32_t slice, int64_t ts) {
    out_->NextElement();
    out_->Raw(ph == 's' ? "{\"ph\":\"s\"" : "{\"ph\":\"f\",\"bp\":\"e\"");
    out_->Raw(",\"id\":");
    out_->Uint(id);
    out_->Raw(",\"cat\":");
    out_->String(cat);
    out_->Raw(",\"name\":");
    out_->String(cat);
    RowFields(rows_.SliceRow(trace_.slices.track_id[slice]));
    Ts(",\"ts\":", ts - base_);
    out_->Char('}');
  }

  Status Flows() {
    const FlowTable& f = trace_.flows;
    const SliceTable& s = trace_.slices;
    for (size_t i = 0; i < f.size(); ++i) {
      uint32_t out = Index(f.out_slice_id[i]), in = Index(f.in_slice_id[i]);
      if (out >= s.size() || in >= s.size()) {
        return Internal("flow row {}: slice {} or {} is outside the slice table ({} rows)", i, out, in, s.size());
      }
      const std::string_view cat = f.name_id[i] != kEmptyString ? trace_.Str(f.name_id[i]) : FlowCategory(f.kind[i]);
      // Chrome flows run forward in time and bind by timestamp: 's' inside the source, 'f'
      // inside the target. A target that starts first but is still running when the source
      // starts is bound at the source's start; one that ended before is linked backwards.
      int64_t s_ts = s.ts_ns[out], f_ts = s.ts_ns[in];
      if (f_ts < s_ts) {
        if (s.dur_ns[in] < 0 || s_ts <= trace_.slice_end(in)) {
          f_ts = s_ts;
        } else {
          std::swap(out, in);
          std::swap(s_ts, f_ts);
        }
      }
      FlowEvent('s', i + 1, cat, out, s_ts);
      FlowEvent('f', i + 1, cat, in, f_ts);
    }
    return Status::Ok();
  }

  Status MemoryEvents() {
    const MemoryEventTable& m = trace_.memory_events;
    for (size_t i = 0; i < m.size(); ++i) {
      out_->NextElement();
      out_->Raw("{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\"");
      RowFields(rows_.SliceRow(m.track_id[i]));
      Ts(",\"ts\":", m.ts_ns[i] - base_);
      // c10::DeviceType: 0 = CPU, 1 = CUDA.
      out_->Raw(m.device[i] == kUnknown ? ",\"args\":{\"Device Type\":0,\"Device Id\":-1" : ",\"args\":{\"Device Type\":1,\"Device Id\":");
      if (m.device[i] != kUnknown) out_->Int(m.device[i]);
      out_->Raw(",\"Addr\":");
      out_->Uint(m.address[i]);
      out_->Raw(",\"Bytes\":");
      out_->Int(m.bytes[i]);
      if (m.total_allocated[i] != kUnknown) {
        out_->Raw(",\"Total Allocated\":");
        out_->Int(m.total_allocated[i]);
      }
      if (m.total_reserved[i] != kUnknown) {
        out_->Raw(",\"Total Reserved\":");
        out_->Int(m.total_reserved[i]);
      }
      out_->Raw("}}");
    }
    return Status::Ok();
  }

  const Trace& trace_;
  JsonSink* out_;
  ChromeRows rows_;
  int64_t base_;
};

}  // namespace

Status WriteChromeJson(const Trace& trace, const std::string& path) {
  AtomicFile file(path);
  RETURN_IF_ERROR(file.Open());
  JsonSink out(&file, path.ends_with(".gz"));
  RETURN_IF_ERROR(ChromeWriter(trace, &out).Run());
  RETURN_IF_ERROR(out.Finish());
  return file.Commit();
}

}  // namespace cprof
