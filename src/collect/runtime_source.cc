// Reading the runtime's record files and turning them into slices, counters, memory events.
#include "collect/runtime_source.h"

#include <dirent.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "collect/host_metadata.h"
#include "collect/op_inputs.h"

namespace cprof {

namespace {

enum class SpanKind : uint8_t { kUser, kOp, kStep };

// at::RecordScope values (ATen/record_function.h, 1.13).
constexpr uint16_t kScopeFunction = 0;
constexpr uint16_t kScopeBackward = 1;
constexpr uint16_t kScopeUser = 6;

}  // namespace

struct RuntimeSource::Process {
  std::unique_ptr<RuntimeFileReader> reader;
  struct Span {
    int64_t ts = 0, dur = 0;
    int32_t tid = 0;
    uint32_t name = 0, category = 0;  // string ids of the file; category 0: by kind
    SpanKind kind = SpanKind::kUser;
    uint16_t flags = 0;
    int64_t seq = -1;
    int64_t step = 0;
    uint32_t ext_begin = 0, ext_count = 0;
  };
  std::vector<Span> spans;                       // complete
  std::vector<uint64_t> ext;                     // op input words of `spans` and `open_ops`
  std::unordered_map<int32_t, std::vector<Span>> open_user;  // per thread, innermost last
  std::unordered_map<uint64_t, Span> open_ops;   // by RecordFunction handle
  std::unordered_map<int32_t, Span> open_step;   // per thread
  // Per thread, the end of its last operator or user span (not a GC pause): where its last step
  // ends when no later step closes it.
  std::unordered_map<int32_t, int64_t> last_work_end;
  struct Counter { int64_t ts; uint32_t name; double value; };
  std::vector<Counter> counters;
  struct Instant { int64_t ts; int32_t tid; uint32_t name, category; };
  std::vector<Instant> instants;
  struct Memory {
    int64_t ts;
    int32_t tid;
    uint64_t address;
    int64_t bytes, total_allocated, total_reserved, device;
    bool free_by_address;  // CPROF_MEM_FREE: the size comes from the matching allocation
  };
  std::vector<Memory> memory;
  struct PySample { int64_t ts; int32_t tid; uint32_t stack; };
  std::vector<PySample> py_samples;
  std::vector<std::pair<uint32_t, uint32_t>> metadata;   // key, value
  std::map<int32_t, uint32_t> thread_names;
  int64_t last_ts = 0;
};

RuntimeSource::RuntimeSource(std::string session_dir, TimeNs poll_interval_ns)
    : dir_(std::move(session_dir)), interval_ns_(poll_interval_ns) {}

RuntimeSource::~RuntimeSource() = default;

void RuntimeSource::Poll(TimeNs now) {
  // Without a span observer nothing needs the records before the end: parsing them now would
  // compete with the target for the CPU (a page-faulting, growing heap here; on two cores the
  // target's 2-thread UNet ran 13% slower for it). The files stay in the session folder until
  // Stop reads them.
  if (!observer_) return;
  if (now < next_ns_) return;
  next_ns_ = now + interval_ns_;
  ReadAll();
}

void RuntimeSource::Stop(TimeNs now) {
  ReadAll();
  stopped_ = true;
  stop_ns_ = now;
}

void RuntimeSource::ReadAll() {
  if (DIR* d = opendir(dir_.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind("rt-", 0) != 0 || name.size() < 4 || name.substr(name.size() - 4) != ".bin") continue;
      auto& p = processes_[name];
      if (!p) {
        p = std::make_unique<Process>();
        p->reader = std::make_unique<RuntimeFileReader>(dir_ + "/" + name);
      }
    }
    closedir(d);
  }
  for (auto& [name, p] : processes_) {
    Process& proc = *p;
    (void)p->reader->ReadMore([&](const RuntimeRecord& r) { OnRecord(proc, r); });
  }
}

void RuntimeSource::OnRecord(Process& p, const RuntimeRecord& r) {
  const cprof_record& rec = *r.record;
  RuntimeFileReader& f = *p.reader;
  const int64_t ts = f.ToNs(rec.ts, rec.flags);
  p.last_ts = std::max(p.last_ts, ts);
  auto complete = [&](Process::Span s) {
    if (observer_) {
      std::string_view cat = s.kind == SpanKind::kOp ? "cpu_op" : s.kind == SpanKind::kStep ? "step" : "user";
      if (s.kind == SpanKind::kStep) {
        observer_("ProfilerStep", cat, s.ts + s.dur, s.dur);
      } else {
        observer_(f.String(s.name), s.category ? std::string_view(f.String(s.category)) : cat, s.ts + s.dur, s.dur);
      }
    }
    if (s.kind == SpanKind::kOp || (s.kind == SpanKind::kUser && !(s.category && f.String(s.category) == "gc")))
      p.last_work_end[s.tid] = std::max(p.last_work_end[s.tid], s.ts + s.dur);
    p.spans.push_back(s);
  };
  switch (rec.kind) {
    case CPROF_REC_SPAN_BEGIN:
      p.open_user[r.tid].push_back({.ts = ts, .tid = r.tid, .name = rec.name, .category = static_cast<uint32_t>(rec.b)});
      break;
    case CPROF_REC_SPAN_END: {
      auto& stack = p.open_user[r.tid];
      if (stack.empty()) break;  // an end without a begin (or one before tracing began)
      Process::Span s = stack.back();
      stack.pop_back();
      s.dur = std::max<int64_t>(0, ts - s.ts);
      complete(s);
      break;
    }
    case CPROF_REC_SPAN: {
      int64_t end = f.ToNs(rec.a, rec.flags);
      complete({.ts = ts, .dur = std::max<int64_t>(0, end - ts), .tid = r.tid, .name = rec.name,
                .category = static_cast<uint32_t>(rec.b)});
      p.last_ts = std::max(p.last_ts, end);
      break;
    }
    case CPROF_REC_STEP:
    case CPROF_REC_STEP_END: {
      // The thread's open step ends now (with no step open, nothing ends); STEP starts the next.
      if (auto it = p.open_step.find(r.tid); it != p.open_step.end()) {
        Process::Span s = it->second;
        s.dur = std::max<int64_t>(0, ts - s.ts);
        p.open_step.erase(it);
        complete(s);
      }
      if (rec.kind == CPROF_REC_STEP)
        p.open_step[r.tid] = {.ts = ts, .tid = r.tid, .name = rec.name, .kind = SpanKind::kStep,
                              .step = static_cast<int64_t>(rec.a)};
      break;
    }
    case CPROF_REC_OP_BEGIN: {
      Process::Span s{.ts = ts, .tid = r.tid, .name = rec.name, .kind = SpanKind::kOp, .flags = rec.flags,
                      .seq = static_cast<int64_t>(rec.b)};
      s.ext_begin = static_cast<uint32_t>(p.ext.size());
      s.ext_count = static_cast<uint32_t>(r.ext_words);
      p.ext.insert(p.ext.end(), r.ext, r.ext + r.ext_words);
      p.open_ops[rec.a] = s;
      break;
    }
    case CPROF_REC_OP_END: {
      auto it = p.open_ops.find(rec.a);
      if (it == p.open_ops.end()) break;
      Process::Span s = it->second;
      p.open_ops.erase(it);
      s.dur = std::max<int64_t>(0, ts - s.ts);
      complete(s);
      break;
    }
    case CPROF_REC_COUNTER: {
      double v;
      std::memcpy(&v, &rec.a, sizeof(v));
      p.counters.push_back({ts, rec.name, v});
      break;
    }
    case CPROF_REC_INSTANT:
      p.instants.push_back({ts, r.tid, rec.name, static_cast<uint32_t>(rec.b)});
      break;
    case CPROF_REC_MEMORY: {
      Process::Memory m{ts, r.tid, rec.a, static_cast<int64_t>(rec.b), -1, -1, -1, (rec.flags & CPROF_MEM_FREE) != 0};
      if (r.ext_words >= 3) {
        m.total_allocated = static_cast<int64_t>(r.ext[0]);
        m.total_reserved = static_cast<int64_t>(r.ext[1]);
        m.device = static_cast<int64_t>(r.ext[2]);
      }
      p.memory.push_back(m);
      break;
    }
    case CPROF_REC_METADATA:
      p.metadata.emplace_back(rec.name, static_cast<uint32_t>(rec.a));
      break;
    case CPROF_REC_PY_SAMPLE:
      p.py_samples.push_back({ts, static_cast<int32_t>(rec.a), rec.name});
      break;
    case CPROF_REC_THREAD_NAME:
      p.thread_names[static_cast<int32_t>(rec.a)] = rec.name;
      break;
    default:
      break;
  }
}

void RuntimeSource::Emit(TraceBuilder& b, TimeNs from, TimeNs to) {
  for (auto& [name, p] : processes_) {
    if (p->reader->has_header()) EmitProcess(b, *p, from, to);
  }
}

namespace {

// Turns sampled Python stacks of one thread into spans: a frame that stays at the same place
// in consecutive samples is one span from its first sample to the sample that no longer has it.
void EmitPythonSpans(TraceBuilder& b, TrackId track, const std::vector<std::pair<int64_t, std::string_view>>& samples,
                     StringId category) {
  if (samples.empty()) return;
  int64_t gap = 10 * kNsPerMs;
  if (samples.size() > 1) {
    std::vector<int64_t> gaps;
    for (size_t i = 1; i < samples.size(); ++i) gaps.push_back(samples[i].first - samples[i - 1].first);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    gap = std::max<int64_t>(1, gaps[gaps.size() / 2]);
  }
  struct Open { std::string_view frame; int64_t start; };
  std::vector<Open> open;
  auto close_from = [&](size_t depth, int64_t end) {
    while (open.size() > depth) {
      b.AddSlice({.ts_ns = open.back().start, .dur_ns = std::max<int64_t>(0, end - open.back().start),
                  .track_id = track, .name_id = b.Intern(open.back().frame), .category_id = category});
      open.pop_back();
    }
  };
  int64_t prev_ts = samples.front().first;
  for (const auto& [ts, stack] : samples) {
    // A long pause between samples (the thread was idle or not sampled) closes everything.
    if (ts - prev_ts > 3 * gap) close_from(0, prev_ts + gap);
    std::vector<std::string_view> frames;
    size_t pos = 0;
    while (pos <= stack.size()) {
      size_t semi = stack.find(';', pos);
      if (semi == std::string_view::npos) semi = stack.size();
      if (semi > pos) frames.push_back(stack.substr(pos, semi - pos));
      pos = semi + 1;
    }
    size_t same = 0;
    while (same < open.size() && same < frames.size() && open[same].frame == frames[same]) ++same;
    close_from(same, ts);
    for (size_t d = same; d < frames.size(); ++d) open.push_back({frames[d], ts});
    prev_ts = ts;
  }
  close_from(0, prev_ts + gap);
}

}  // namespace

void RuntimeSource::EmitProcess(TraceBuilder& b, Process& p, TimeNs from, TimeNs to) {
  RuntimeFileReader& f = *p.reader;
  const pid_t pid = f.pid();
  auto in_window = [&](int64_t ts) { return ts >= from && ts <= to; };
  const StringId cat_cpu_op = b.Intern("cpu_op"), cat_user = b.Intern("user_annotation"),
                 cat_python = b.Intern("python_function"), cat_step = b.Intern("user_annotation");
  const StringId k_dims = b.Intern("Input Dims"), k_types = b.Intern("Input type"),
                 k_seq = b.Intern("Sequence number"), k_scope = b.Intern("scope");

  // Op slices by sequence number, for forward -> backward flows.
  std::unordered_map<int64_t, SliceId> fwd_by_seq;
  std::vector<std::pair<int64_t, SliceId>> bwd;
  auto add_span = [&](const Process::Span& s, bool open) {
    TrackId track = b.ThreadTrack(pid, s.tid);
    SliceTable::Row row{.ts_ns = s.ts, .dur_ns = s.dur, .track_id = track};
    if (s.kind == SpanKind::kStep) {
      row.name_id = b.Intern(f.String(s.name) + "#" + std::to_string(s.step));
      row.category_id = cat_step;
    } else if (s.kind == SpanKind::kOp) {
      uint16_t scope = s.flags & CPROF_OP_SCOPE_MASK;
      row.name_id = b.Intern(f.String(s.name));
      row.category_id = scope == kScopeUser ? cat_user : cat_cpu_op;
      OpInputs in = DecodeOpInputs(p.ext.data() + s.ext_begin, s.ext_count, s.flags & CPROF_OP_TRUNCATED);
      if (in.count > 0) {
        b.args().Add(k_dims, Value::String(b.Intern(in.dims)));
        b.args().Add(k_types, Value::String(b.Intern(in.types)));
      }
      if (s.seq >= 0) b.args().Add(k_seq, Value::Int(s.seq));
      if (scope == kScopeBackward) b.args().Add(k_scope, Value::String(b.Intern("backward")));
      row.arg_set_id = b.args().Finish();
    } else {
      row.name_id = b.Intern(f.String(s.name));
      row.category_id = s.category ? b.Intern(f.String(s.category)) : cat_user;
    }
    if (open) {
      b.BeginSlice(row);
      return;
    }
    SliceId id = b.AddSlice(row);
    if (s.kind == SpanKind::kOp && s.seq >= 0) {
      uint16_t scope = s.flags & CPROF_OP_SCOPE_MASK;
      if (scope == kScopeFunction) {
        fwd_by_seq.try_emplace(s.seq, id);  // the outermost (first to complete is innermost; fixed below)
      } else if (scope == kScopeBackward) {
        bwd.emplace_back(s.seq, id);
      }
    }
  };

  // Forward ops complete innermost first; the flow should leave the outermost op with that
  // sequence number, so visit completed spans by start time.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < p.spans.size(); ++i) {
    if (in_window(p.spans[i].ts)) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t c) {
    if (p.spans[a].ts != p.spans[c].ts) return p.spans[a].ts < p.spans[c].ts;
    return p.spans[a].dur > p.spans[c].dur;
  });
  for (uint32_t i : order) add_span(p.spans[i], false);
  for (const auto& [seq, in] : bwd) {
    auto it = fwd_by_seq.find(seq);
    if (it != fwd_by_seq.end()) b.AddFlow(it->second, in, FlowKind::kFwdBwd);
  }
  if (stopped_) {
    // Still open when the process ended or collection stopped (a crash, Ctrl-C): kept, ending
    // at the trace's end, and counted as unclosed.
    for (auto& [tid, stack] : p.open_user) {
      for (const auto& s : stack) {
        if (in_window(s.ts)) add_span(s, true);
      }
    }
    for (auto& [handle, s] : p.open_ops) {
      if (in_window(s.ts)) add_span(s, true);
    }
    for (auto& [tid, s] : p.open_step) {
      // The last step of a thread, which no later step closed, ends with the thread's last work
      // in it: with the process's last record it took in the interpreter's shutdown (178 ms
      // against steps of 1 ms, and a false tail-latency finding). Without work in it, with the
      // process's last record.
      Process::Span last = s;
      const auto work = p.last_work_end.find(tid);
      const int64_t end = work != p.last_work_end.end() && work->second > s.ts ? work->second : p.last_ts;
      last.dur = std::max<int64_t>(0, end - s.ts);
      if (in_window(last.ts)) add_span(last, false);
    }
  }

  for (const auto& c : p.counters) {
    if (!in_window(c.ts)) continue;
    TrackId t = b.ChildTrack(b.ProcessTrack(pid), TrackKind::kCounter, b.Intern(f.String(c.name)));
    b.AddCounter(t, c.ts, c.value);
  }
  for (const auto& i : p.instants) {
    if (!in_window(i.ts)) continue;
    b.AddSlice({.ts_ns = i.ts, .dur_ns = 0, .track_id = b.ThreadTrack(pid, i.tid), .name_id = b.Intern(f.String(i.name)),
                .category_id = i.category ? b.Intern(f.String(i.category)) : cat_user});
  }
  // Threads flush independently: order by time, then give frees the size of the allocation
  // at their address and keep a running total where the writer did not know it.
  std::vector<Process::Memory> memory = p.memory;
  std::stable_sort(memory.begin(), memory.end(), [](const auto& x, const auto& y) { return x.ts < y.ts; });
  std::unordered_map<uint64_t, int64_t> live;
  int64_t total = 0;
  for (Process::Memory m : memory) {
    if (m.free_by_address) {
      auto it = live.find(m.address);
      if (it == live.end()) continue;  // allocated before tracing began (or forgotten)
      m.bytes = -it->second;
      live.erase(it);
    } else if (m.bytes > 0) {
      live[m.address] = m.bytes;
    }
    total += m.bytes;
    if (m.total_allocated < 0) m.total_allocated = total;
    if (!in_window(m.ts)) continue;
    b.AddMemoryEvent({.ts_ns = m.ts, .track_id = b.ThreadTrack(pid, m.tid), .device = m.device,
                      .address = m.address, .bytes = m.bytes, .total_allocated = m.total_allocated,
                      .total_reserved = m.total_reserved});
  }
  std::map<int32_t, std::vector<std::pair<int64_t, std::string_view>>> py;
  for (const auto& s : p.py_samples) {
    if (in_window(s.ts)) py[s.tid].emplace_back(s.ts, f.String(s.stack));
  }
  for (auto& [tid, samples] : py) {
    std::sort(samples.begin(), samples.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    TrackId thread = b.ThreadTrack(pid, tid);
    TrackId track = b.ChildTrack(thread, TrackKind::kThread, b.Intern("python (sampled)"));
    EmitPythonSpans(b, track, samples, cat_python);
  }
  std::set<std::string> seen_keys;
  for (const auto& [key, value] : p.metadata) {
    const std::string& k = f.String(key);
    if (k.empty() || !seen_keys.insert(k).second) continue;
    if (b.trace().Metadata(k)) continue;
    std::string v = f.String(value);
    if (k == "python_argv") {  // a command line (the shim joins sys.argv with spaces): its secrets go
      std::vector<std::string> argv;
      for (size_t at = 0; at <= v.size();) {
        const size_t space = std::min(v.find(' ', at), v.size());
        argv.push_back(v.substr(at, space - at));
        at = space + 1;
      }
      v.clear();
      for (const std::string& arg : RedactedArgv(std::move(argv))) v += (v.empty() ? "" : " ") + arg;
    }
    b.SetMetadataString(k, v);
  }
  for (const auto& [tid, name] : p.thread_names) {
    TrackId t = b.ThreadTrack(pid, tid);
    b.tracks().name_id[Index(t)] = b.Intern(f.String(name));
  }
  if (f.malformed() > 0) b.stats().Add(ImportStat::collect_runtime_malformed, f.malformed());
}

void RuntimeSource::Forget(TimeNs before) {
  for (auto& [name, p] : processes_) {
    auto& s = p->spans;
    s.erase(std::remove_if(s.begin(), s.end(), [&](const auto& x) { return x.ts + x.dur < before; }), s.end());
    auto drop = [&](auto& v) {
      v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& x) { return x.ts < before; }), v.end());
    };
    drop(p->counters);
    drop(p->instants);
    drop(p->memory);
    drop(p->py_samples);
    // Op input words are kept (they are small and shared by open ops).
  }
}

}  // namespace cprof
