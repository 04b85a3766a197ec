// Phase by phase: slices, instants, memory events, counters, metadata, flows and async spans.
#include "import/json/event_translator.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "import/json/kineto_dialect.h"

namespace cprof::json {
namespace {

const JsonArg* FindArg(const ParsedBatch& b, const JsonEvent& ev, std::string_view key) {
  for (uint32_t i = ev.arg_begin; i < ev.arg_begin + ev.arg_count; ++i) {
    if (b.args[i].key == key) return &b.args[i];
  }
  return nullptr;
}

std::optional<int64_t> ArgInt(const JsonArg* a) {
  if (a == nullptr) return std::nullopt;
  switch (a->kind) {
    case JsonArg::Kind::kInt: return a->i;
    case JsonArg::Kind::kUint: return static_cast<int64_t>(a->u);
    case JsonArg::Kind::kDouble: return static_cast<int64_t>(a->d);
    default: return std::nullopt;
  }
}

std::optional<double> ArgNumber(const JsonArg& a) {
  switch (a.kind) {
    case JsonArg::Kind::kInt: return static_cast<double>(a.i);
    case JsonArg::Kind::kUint: return static_cast<double>(a.u);
    case JsonArg::Kind::kDouble: return a.d;
    case JsonArg::Kind::kString: {
      double d;
      auto r = std::from_chars(a.text.data(), a.text.data() + a.text.size(), d);
      if (r.ec == std::errc() && r.ptr == a.text.data() + a.text.size()) return d;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// The unit a counter series key names: "Read(MB/s)" -> "MB/s", "MHz" -> "MHz".
std::string_view UnitOf(std::string_view key) {
  if (key.size() > 2 && key.back() == ')') {
    size_t open = key.rfind('(');
    if (open != std::string_view::npos) return key.substr(open + 1, key.size() - open - 2);
  }
  for (std::string_view u : {"MHz", "KB", "MB", "GB", "B", "bytes", "%", "us", "ns", "ms"}) {
    if (key == u) return key;
  }
  return {};
}

// Counter args that label a series rather than being one (torch_npu Acc PMU).
bool IsCounterLabelKey(std::string_view key) { return key == "acc_id"; }

std::string FlowIdText(const JsonFlowId& id) {
  return id.kind == JsonFlowId::Kind::kNumber ? std::to_string(id.num) : std::string(id.str);
}

}  // namespace

EventTranslator::EventTranslator(TraceBuilder* builder, std::string path, bool compressed)
    : b_(builder), path_(path), tracks_(builder), async_(builder), meta_(std::move(path)), compressed_(compressed) {}

Status EventTranslator::Apply(const ParsedBatch& batch) {
  for (const TopLevelMember& m : batch.members) RETURN_IF_ERROR(meta_.AddMember(m, compressed_));
  for (const JsonEvent& ev : batch.events) OnEvent(batch, ev);
  return Status::Ok();
}

StringId EventTranslator::Category(std::string_view cat) {
  if (cat.empty()) return kEmptyString;
  if (cat == last_cat_) return last_cat_id_;
  last_cat_.assign(cat);
  last_cat_id_ = b_->Intern(cat);
  meta_.SawCategory(cat);
  return last_cat_id_;
}

bool EventTranslator::IsDeviceCategory(StringId cat) {
  const uint32_t i = Index(cat);
  if (i >= device_category_.size()) device_category_.resize(i + 1, -1);
  if (device_category_[i] < 0) device_category_[i] = IsGpuDeviceCategory(b_->trace().Str(cat)) ? 1 : 0;
  return device_category_[i] == 1;
}

TrackId EventTranslator::RowTrack(const JsonEvent& ev, int64_t pid, int64_t tid) {
  const StringId cat = Category(ev.cat);
  const bool user_row = ev.cat == "User" && ev.tid.kind == JsonId::Kind::kString && StreamFromTid(ev.tid.str);
  if ((cat != kEmptyString && IsDeviceCategory(cat)) || user_row) {
    // Kineto writes device activities with pid = device index and tid = stream ("stream 7" in 2021).
    const int64_t device = ev.pid.kind == JsonId::Kind::kNumber ? ev.pid.num : 0;
    int64_t stream = kUnknown;
    if (ev.tid.kind == JsonId::Kind::kNumber) {
      stream = ev.tid.num;
    } else if (ev.tid.kind == JsonId::Kind::kString) {
      stream = StreamFromTid(ev.tid.str).value_or(kUnknown);
    }
    return tracks_.Device(TrackKind::kGpuStream, device, stream, pid, tid);
  }
  if (ev.pid.kind == JsonId::Kind::kString) {
    if (ev.pid.str == kLegacyCpuPid) meta_.SawLegacyPid();
    if (auto kind = LegacyDevicePid(ev.pid.str)) {
      // PyTorch 1.x: "CUDA functions" rows, tid = device index, no stream.
      const int64_t device = ev.tid.kind == JsonId::Kind::kNumber ? ev.tid.num : 0;
      return tracks_.Device(*kind, device, kUnknown, pid, tid);
    }
  }
  return tracks_.Leaf(pid, tid);
}

StringId EventTranslator::CachedIntern(CachedText& slot, std::string_view text) {
  if (slot.id != kEmptyString && slot.text == text) return slot.id;
  slot.text.assign(text);
  slot.id = b_->Intern(text);
  return slot.id;
}

ArgSetId EventTranslator::AddArgs(const ParsedBatch& b, const JsonEvent& ev) {
  if (ev.arg_count == 0) return kNoArgs;
  constexpr uint32_t kCachedArgs = 32;
  const uint32_t cat = Index(Category(ev.cat));
  if (cat >= arg_cache_.size()) arg_cache_.resize(cat + 1);
  ArgCache& cache = arg_cache_[cat];
  if (cache.keys.size() < std::min(ev.arg_count, kCachedArgs)) {
    cache.keys.resize(std::min(ev.arg_count, kCachedArgs));
    cache.values.resize(cache.keys.size());
  }
  ArgTable& args = b_->args();
  for (uint32_t j = 0; j < ev.arg_count; ++j) {
    const JsonArg& a = b.args[ev.arg_begin + j];
    Value v;
    switch (a.kind) {
      case JsonArg::Kind::kNull: break;
      case JsonArg::Kind::kInt: v = Value::Int(a.i); break;
      case JsonArg::Kind::kUint: v = Value::Uint(a.u); break;
      case JsonArg::Kind::kDouble: v = Value::Double(a.d); break;
      case JsonArg::Kind::kBool: v = Value::Bool(a.b); break;
      case JsonArg::Kind::kString:
      case JsonArg::Kind::kJson:
        v = Value::String(j < kCachedArgs ? CachedIntern(cache.values[j], a.text) : b_->Intern(a.text));
        break;
    }
    args.Add(j < kCachedArgs ? CachedIntern(cache.keys[j], a.key) : b_->Intern(a.key), v);
  }
  return args.Finish();
}

SliceTable::Row EventTranslator::MakeRow(const ParsedBatch& b, const JsonEvent& ev, TrackId track, int64_t dur_ns) {
  last_ts_ns_ = std::max(last_ts_ns_, ev.ts_ns + std::max<int64_t>(0, dur_ns));
  return {.ts_ns = ev.ts_ns,
          .dur_ns = dur_ns,
          .track_id = track,
          .name_id = b_->Intern(ev.name),
          .category_id = Category(ev.cat),
          .arg_set_id = AddArgs(b, ev),
          .correlation_id = ev.correlation >= 0 ? ev.correlation : ev.external_id};
}

void EventTranslator::OnEvent(const ParsedBatch& b, const JsonEvent& ev) {
  if (ev.skip) {
    b_->stats().Add(ev.skip_reason);
    return;
  }
  if (ev.ph == 0 || (ev.ph != 'M' && !ev.has_ts)) {
    b_->stats().Add(ImportStat::json_missing_field);
    return;
  }
  const int64_t pid = tracks_.PidOf(ev.pid);
  const int64_t tid = tracks_.TidOf(ev.tid, pid);
  switch (ev.ph) {
    case 'X': OnComplete(b, ev, pid, tid); break;
    case 'B': OnBegin(b, ev, pid, tid); break;
    case 'E':
      last_ts_ns_ = std::max(last_ts_ns_, ev.ts_ns);
      b_->EndSlice(RowTrack(ev, pid, tid), ev.ts_ns);
      break;
    case 'i':
    case 'I':
    case 'R': OnInstant(b, ev, pid, tid); break;
    case 'C': OnCounter(b, ev, pid); break;
    case 'M': OnMetadata(b, ev, pid, tid); break;
    case 's':
    case 't':
    case 'f': OnFlow(ev, pid, tid); break;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'T':
    case 'p':
    case 'F': OnAsync(b, ev, pid); break;
    case 'P':  // samples, objects, memory dumps, clock syncs, contexts: not in the model
    case 'O':
    case 'N':
    case 'D':
    case 'v':
    case 'V':
    case 'c':
    case '(':
    case ')': b_->stats().Add(ImportStat::json_ignored_phase); break;
    default: b_->stats().Add(ImportStat::json_unknown_phase); break;
  }
}

void EventTranslator::OnComplete(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid) {
  if (!ev.has_dur) {
    b_->stats().Add(ImportStat::json_missing_field);
    return;
  }
  if (int64_t end; __builtin_add_overflow(ev.ts_ns, std::max<int64_t>(0, ev.dur_ns), &end)) {
    b_->stats().Add(ImportStat::timestamp_out_of_range);  // its end is past int64 ns
    return;
  }
  const TrackId track = RowTrack(ev, pid, tid);
  if (b_->AddSlice(MakeRow(b, ev, track, ev.dur_ns)) != kNoSlice) OnFlowV2(ev, track);
}

void EventTranslator::OnBegin(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid) {
  const TrackId track = RowTrack(ev, pid, tid);
  b_->BeginSlice(MakeRow(b, ev, track, -1));
  OnFlowV2(ev, track);
}

void EventTranslator::OnInstant(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid) {
  if (IsMemoryEventName(ev.name)) {
    OnMemory(b, ev, pid, tid);
    return;
  }
  TrackId track;
  if (ev.scope == 'g') {
    track = tracks_.GlobalInstants();
  } else if (ev.scope == 'p') {
    track = tracks_.Process(pid);
  } else {
    track = RowTrack(ev, pid, tid);
  }
  b_->AddSlice(MakeRow(b, ev, track, 0));
}

void EventTranslator::OnMemory(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid) {
  const JsonArg* addr = FindArg(b, ev, "Addr");
  const std::optional<int64_t> bytes = ArgInt(FindArg(b, ev, "Bytes"));
  if (!bytes || addr == nullptr || (addr->kind != JsonArg::Kind::kInt && addr->kind != JsonArg::Kind::kUint)) {
    b_->stats().Add(ImportStat::memory_event_malformed);
    return;
  }
  const std::optional<int64_t> type = ArgInt(FindArg(b, ev, "Device Type"));
  const std::optional<int64_t> id = ArgInt(FindArg(b, ev, "Device Id"));
  last_ts_ns_ = std::max(last_ts_ns_, ev.ts_ns);
  b_->AddMemoryEvent({.ts_ns = ev.ts_ns,
                      .track_id = tracks_.Leaf(pid, tid),
                      .device = type && *type != kC10DeviceTypeCpu ? id.value_or(kUnknown) : kUnknown,
                      .address = addr->kind == JsonArg::Kind::kUint ? addr->u : static_cast<uint64_t>(addr->i),
                      .bytes = *bytes,
                      .total_allocated = ArgInt(FindArg(b, ev, "Total Allocated")).value_or(kUnknown),
                      .total_reserved = ArgInt(FindArg(b, ev, "Total Reserved")).value_or(kUnknown)});
}

void EventTranslator::OnCounter(const ParsedBatch& b, const JsonEvent& ev, int64_t pid) {
  if (ev.arg_count == 0) {
    b_->stats().Add(ImportStat::json_missing_field);
    return;
  }
  last_ts_ns_ = std::max(last_ts_ns_, ev.ts_ns);
  // One series per value key: "<name>[ <id>] <key>", or just the name when the key repeats it
  // or is the generic "value"; label keys (acc_id) make series of their own.
  std::string base(ev.name);
  if (!ev.id.empty()) base += " " + FlowIdText(ev.id);
  for (uint32_t i = ev.arg_begin; i < ev.arg_begin + ev.arg_count; ++i) {
    const JsonArg& label = b.args[i];
    if (!IsCounterLabelKey(label.key)) continue;
    if (auto v = ArgInt(&label)) base += fmt::format(" {}={}", label.key, *v);
  }
  for (uint32_t i = ev.arg_begin; i < ev.arg_begin + ev.arg_count; ++i) {
    const JsonArg& a = b.args[i];
    if (IsCounterLabelKey(a.key)) continue;
    std::optional<double> value = ArgNumber(a);
    if (!value) {
      b_->stats().Add(ImportStat::counter_non_numeric);
      continue;
    }
    scratch_ = base;
    if (a.key != ev.name && a.key != "value") (scratch_ += ' ') += a.key;
    const TrackId track = tracks_.Counter(pid, b_->Intern(scratch_), b_->Intern(UnitOf(a.key)));
    b_->AddCounter(track, ev.ts_ns, *value);
  }
}

void EventTranslator::OnMetadata(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid) {
  const std::string_view n = ev.name;
  auto sort_index = [&]() -> std::optional<int64_t> {
    auto v = ArgInt(FindArg(b, ev, "sort_index"));
    if (!v) b_->stats().Add(ImportStat::json_missing_field);
    return v;
  };
  auto text = [&](std::string_view key) -> std::optional<std::string_view> {
    const JsonArg* a = FindArg(b, ev, key);
    if (a == nullptr || a->kind != JsonArg::Kind::kString) {
      b_->stats().Add(ImportStat::json_missing_field);
      return std::nullopt;
    }
    return a->text;
  };
  if (n == "process_name") {
    if (auto s = text("name")) {
      tracks_.SetProcessName(pid, *s);
      meta_.SawProcessName(*s);
    }
  } else if (n == "process_labels") {
    if (auto s = text("labels")) tracks_.SetProcessLabels(pid, *s);
  } else if (n == "process_sort_index") {
    if (auto v = sort_index()) tracks_.SetProcessSortIndex(pid, *v);
  } else if (n == "thread_name") {
    if (auto s = text("name")) tracks_.SetThreadName(pid, tid, *s);
  } else if (n == "thread_sort_index") {
    if (auto v = sort_index()) tracks_.SetThreadSortIndex(pid, tid, *v);
  } else if (n.empty()) {
    b_->stats().Add(ImportStat::json_missing_field);
  }
}

void EventTranslator::OnFlow(const JsonEvent& ev, int64_t pid, int64_t tid) {
  if (ev.id.empty()) {
    b_->stats().Add(ImportStat::json_missing_field);
    return;
  }
  meta_.SawFlowCategory(ev.cat);
  FlowEndpoint e;
  e.ts_ns = ev.ts_ns;
  e.key = FlowCollector::Key(ev.cat, ev.id);
  e.phase = ev.ph == 's' ? FlowEndpoint::Phase::kStart
            : ev.ph == 't' ? FlowEndpoint::Phase::kStep
                           : FlowEndpoint::Phase::kEnd;
  // 's' and 't' bind to the enclosing slice; 'f' too with "bp": "e", else to the next slice.
  e.bind_enclosing = ev.ph != 'f' || ev.bind_enclosing;
  e.close_flow = false;  // several 'f' of one 's' fan out (graph launches, torch_npu task splits)
  e.kind = FlowKindForCategory(ev.cat);
  e.name_id = ev.cat.empty() ? b_->Intern(ev.name) : Category(ev.cat);
  flows_.Add(pid, tid, FlowEndsOnDevice(ev.cat), e, &tracks_);
}

void EventTranslator::OnFlowV2(const JsonEvent& ev, TrackId track) {
  if (ev.bind_id.empty() || !(ev.flow_in || ev.flow_out)) return;
  FlowEndpoint e;
  e.track = track;
  e.ts_ns = ev.ts_ns;
  e.key = FlowCollector::Key("bind_id", ev.bind_id);
  e.phase = ev.flow_in && ev.flow_out ? FlowEndpoint::Phase::kStep
            : ev.flow_out             ? FlowEndpoint::Phase::kStart
                                      : FlowEndpoint::Phase::kEnd;
  e.close_flow = false;
  e.kind = FlowKindForCategory(ev.cat);
  flows_.Add(0, 0, false, e, &tracks_);
}

void EventTranslator::OnAsync(const ParsedBatch& b, const JsonEvent& ev, int64_t pid) {
  if (ev.id.empty()) {
    b_->stats().Add(ImportStat::json_missing_field);
    return;
  }
  // One async track per (process, category, name); spans pair up by (process, category, id).
  const uint64_t key = FlowCollector::Key(ev.cat, ev.id) ^ (static_cast<uint64_t>(pid) * 0x9E3779B97F4A7C15ull);
  switch (ev.ph) {
    case 'b':
    case 'S': {
      const TrackId track = tracks_.Async(pid, Category(ev.cat), b_->Intern(ev.name));
      async_.Begin(key, MakeRow(b, ev, track, -1));
      break;
    }
    case 'e':
    case 'F':
      last_ts_ns_ = std::max(last_ts_ns_, ev.ts_ns);
      async_.End(key, ev.ts_ns);
      break;
    default: {  // 'n', and the legacy steps 'T' / 'p': zero-length marks on the span's track
      const TrackId track = tracks_.Async(pid, Category(ev.cat), b_->Intern(ev.name));
      b_->AddSlice(MakeRow(b, ev, track, 0));
      break;
    }
  }
}

void EventTranslator::Shift(int64_t delta) {
  // The model's times are within +-2^62 ns (TraceBuilder), so a base time also within it cannot
  // overflow them; a larger one is a corrupt header: the times stay relative.
  if (delta > (int64_t{1} << 62) || delta < -(int64_t{1} << 62)) {
    b_->stats().Add(ImportStat::timestamp_out_of_range);
    return;
  }
  Trace& t = b_->trace();
  for (int64_t& ts : t.slices.ts_ns) ts += delta;
  for (int64_t& ts : t.counters.ts_ns) ts += delta;
  for (int64_t& ts : t.memory_events.ts_ns) ts += delta;
  flows_.Shift(delta);
}

Status EventTranslator::Finish() {
  async_.Finish(last_ts_ns_ == INT64_MIN ? 0 : last_ts_ns_);
  // Kineto (2024+) writes ts relative to baseTimeNanoseconds: make them ns since the epoch.
  if (meta_.base_time_ns() != 0) Shift(meta_.base_time_ns());
  flows_.Finish(&tracks_, b_);
  tracks_.Finish(meta_.torch_npu(), meta_.rank());
  meta_.Write(b_);
  return Status::Ok();
}

}  // namespace cprof::json
