// Text and JSON renderings of `summary`.
#include "cli/summary_render.h"

#include <cmath>

#include <fmt/format.h>

#include "base/short_name.h"
#include "base/time_units.h"
#include "cli/cli_common.h"
#include "cli/json_values.h"
#include "stats/summary_stats.h"

namespace cprof::cli {
namespace {

int64_t RoundNs(double ns) { return std::isfinite(ns) ? std::llround(ns) : 0; }
double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

nlohmann::ordered_json OpsToJson(const std::vector<OpStat>& ops) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const OpStat& o : ops) {
    out.push_back({{"name", o.name},
                   {"count", o.count},
                   {"total_ns", o.total_ns},
                   {"self_ns", o.self_ns},
                   {"mean_ns", RoundNs(o.mean_ns)},
                   {"p50_ns", RoundNs(o.p50_ns)},
                   {"p99_ns", RoundNs(o.p99_ns)},
                   {"min_ns", o.min_ns},
                   {"max_ns", o.max_ns}});
  }
  return out;
}

// torch_npu's step_trace_time.csv as that file writes it: one object per step, its columns in
// snake_case, in us. The imported table when the trace came with one (rank folders, db export),
// else the same columns from the breakdown recomputed from the trace.
nlohmann::ordered_json AscendStepTraceJson(const Trace& t, const std::vector<StepTraceTime>& rows) {
  if (std::string text = t.MetadataText("ascend_step_trace"); !text.empty()) {
    auto table = nlohmann::ordered_json::parse(text, nullptr, false);
    if (table.is_array()) return table;
  }
  auto us = [](int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const StepTraceTime& s : rows) {
    out.push_back({{"step", s.step_id},
                   {"computing", us(s.computing_ns)},
                   {"communication_not_overlapped", us(s.comm_not_overlapped_ns)},
                   {"overlapped", us(s.overlapped_ns)},
                   {"communication", us(s.communication_ns)},
                   {"free", us(s.free_ns)},
                   {"stage", us(s.stage_ns)},
                   {"bubble", us(s.bubble_ns)},
                   {"communication_not_overlapped_and_exclude_receive", us(s.comm_not_overlapped_excl_receive_ns)},
                   {"preparing", us(s.preparing_ns)}});
  }
  return out;
}

nlohmann::ordered_json TopOpsToJson(const std::vector<OpStat>& ops, size_t top) {
  return {{"count", ops.size()},
          {"by_self", OpsToJson(TopOps(ops, OpSortKey::kSelf, top))},
          {"by_total", OpsToJson(TopOps(ops, OpSortKey::kTotal, top))}};
}

nlohmann::ordered_json TimelineToJson(const GpuTimeline& t) {
  return {{"computation_time", Ms(t.computation_ns)}, {"exposed_comm_time", Ms(t.exposed_comm_ns)},
          {"exposed_memcpy_time", Ms(t.exposed_memcpy_ns)}, {"busy_time", Ms(t.busy_ns)},
          {"idle_time", Ms(t.idle_ns)},                 {"total_time", Ms(t.total_ns)},
          {"total_comm_time", Ms(t.total_comm_ns)},     {"total_memcpy_time", Ms(t.total_memcpy_ns)}};
}

std::string DeviceKind(const GpuTimeline& t) {
  if (t.has_gpu && t.has_npu) return "gpu+npu";
  return t.has_npu ? "npu" : "gpu";
}

SummaryStats StepStats(const std::vector<Step>& steps) {
  std::vector<int64_t> d;
  for (const Step& s : steps) d.push_back(s.dur_ns);
  return Summarize(std::move(d));
}

std::string Pct(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:6.2f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole)) : "";
}

std::string Shorten(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

void OpsTable(std::string* out, const std::string& title, const std::vector<OpStat>& ops) {
  if (ops.empty()) return;
  *out += fmt::format("\n{}\n", title);
  *out += fmt::format("  {:<48} {:>7} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "name", "count", "total", "self",
                      "mean", "p50", "p99");
  for (const OpStat& o : ops) {
    *out += fmt::format("  {:<48} {:>7} {:>12} {:>12} {:>12} {:>12} {:>12}\n", ShortName(o.name, 48), o.count,
                        FormatDuration(o.total_ns), FormatDuration(o.self_ns), FormatDuration(RoundNs(o.mean_ns)),
                        FormatDuration(RoundNs(o.p50_ns)), FormatDuration(RoundNs(o.p99_ns)));
  }
}

}  // namespace

nlohmann::ordered_json SummaryToJson(const SummaryReport& r) {
  const Trace& t = *r.trace;
  nlohmann::ordered_json doc = NewJsonDocument("summary");
  doc["path"] = r.path;
  doc["source_format"] = r.source_format;
  doc["metadata"] = MetadataToJson(t);
  doc["time_span"] = {{"start_ns", t.start_ns}, {"end_ns", t.end_ns}, {"dur_ns", t.end_ns - t.start_ns}};
  if (r.window.bounded()) {
    doc["window"] = {{"start_ns", std::max(r.window.start_ns, t.start_ns)},
                     {"end_ns", std::min(r.window.end_ns, t.end_ns)}};
  }
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const auto& [k, n] : r.tracks_by_kind) kinds[k] = n;
  doc["tracks"] = {{"total", t.tracks.size()}, {"by_kind", kinds}};
  doc["top_ops"] = {{"cpu", TopOpsToJson(r.ops.cpu, r.top)}, {"device", TopOpsToJson(r.ops.device, r.top)}};

  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const Step& s : r.steps) {
    steps.push_back({{"id", s.id},
                     {"start_ns", s.start_ns},
                     {"dur_ns", s.dur_ns},
                     {"name", s.name},
                     {"source", StepSourceName(s.source)}});
  }
  doc["steps"] = steps;
  SummaryStats ss = StepStats(r.steps);
  doc["step_stats"] = {{"count", ss.count},          {"mean_ns", RoundNs(ss.mean)}, {"p50_ns", RoundNs(ss.p50)},
                       {"p99_ns", RoundNs(ss.p99)}, {"min_ns", ss.min},            {"max_ns", ss.max}};

  if (r.gpu_timeline) {
    nlohmann::ordered_json tl = TimelineToJson(*r.gpu_timeline);
    tl["unit"] = "ms";
    tl["device"] = DeviceKind(*r.gpu_timeline);
    tl["start_ns"] = r.gpu_timeline->start_ns;
    tl["end_ns"] = r.gpu_timeline->end_ns;
    tl["events"] = {{"computation", r.gpu_timeline->computation_events},
                    {"communication", r.gpu_timeline->comm_events},
                    {"memcpy", r.gpu_timeline->memcpy_events}};
    doc["gpu_timeline"] = tl;
  } else {
    doc["gpu_timeline"] = nullptr;
  }
  nlohmann::ordered_json per_step = nlohmann::ordered_json::array();
  for (const StepGpuTimeline& s : r.gpu_timeline_per_step) {
    nlohmann::ordered_json row = {{"id", s.step_id}};
    row.update(TimelineToJson(s.timeline));
    per_step.push_back(row);
  }
  doc["gpu_timeline_per_step"] = per_step;

  nlohmann::ordered_json stt = nlohmann::ordered_json::array();
  for (const StepTraceTime& s : r.step_trace_time) {
    stt.push_back({{"step", s.step_id},
                   {"computing_ns", s.computing_ns},
                   {"comm_not_overlapped_ns", s.comm_not_overlapped_ns},
                   {"overlapped_ns", s.overlapped_ns},
                   {"communication_ns", s.communication_ns},
                   {"free_ns", s.free_ns},
                   {"stage_ns", s.stage_ns},
                   {"bubble_ns", s.bubble_ns},
                   {"comm_not_overlapped_excl_receive_ns", s.comm_not_overlapped_excl_receive_ns},
                   {"preparing_ns", s.preparing_ns},
                   {"window_start_ns", s.window_start_ns},
                   {"window_end_ns", s.window_end_ns}});
  }
  doc["step_trace_time"] = stt;
  doc["ascend_step_trace"] = AscendStepTraceJson(t, r.step_trace_time);
  doc["import_stats"] = ImportStatsToJson(t.stats);
  return doc;
}

std::string RenderSummaryText(const SummaryReport& r) {
  const Trace& t = *r.trace;
  std::string out;
  out += fmt::format("trace       {}{}\n", r.path, r.source_format.empty() ? "" : " (" + r.source_format + ")");
  out += fmt::format("time span   {}\n", FormatDuration(t.end_ns - t.start_ns));
  if (r.window.bounded()) {
    int64_t a = std::max(r.window.start_ns, t.start_ns), b = std::min(r.window.end_ns, t.end_ns);
    out += fmt::format("window      +{} .. +{} ({})\n", FormatDuration(a - t.start_ns), FormatDuration(b - t.start_ns),
                       FormatDuration(std::max<int64_t>(0, b - a)));
  }
  if (const std::string kept = t.MetadataText("op_event_fraction"); !kept.empty()) {
    const double fraction = std::strtod(kept.c_str(), nullptr);
    if (fraction > 0 && fraction < 1)
      out += fmt::format("sampled     {:g}% of the operators were kept (trace --sampling_rate): their counts and "
                         "totals are of those\n",
                         100 * fraction);
  }
  nlohmann::ordered_json metadata = MetadataToJson(t);
  for (const auto& [key, value] : metadata.items()) {
    if (key == meta::kSourceFormat || key == meta::kSourcePath) continue;
    std::string v = value.is_string() ? value.get<std::string>() : value.dump();
    out += fmt::format("  {:<21} {}\n", key, Shorten(v, 90));  // a space even after a long key
  }
  std::string kinds;
  for (const auto& [k, n] : r.tracks_by_kind) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
  out += fmt::format("tracks      {} ({})\n", t.tracks.size(), kinds);

  if (!r.steps.empty()) {
    SummaryStats ss = StepStats(r.steps);
    out += fmt::format("\nsteps ({}): {}, mean {}, p50 {}, p99 {}\n", StepSourceName(r.steps.front().source), ss.count,
                       FormatDuration(RoundNs(ss.mean)), FormatDuration(RoundNs(ss.p50)),
                       FormatDuration(RoundNs(ss.p99)));
    size_t shown = 0;
    for (const Step& s : r.steps) {
      if (++shown > 20) {
        out += fmt::format("  ... {} more\n", r.steps.size() - 20);
        break;
      }
      out += fmt::format("  {:<24} id {:<6} at +{:<14} {}\n", Shorten(s.name, 24), s.id,
                         FormatDuration(s.start_ns - t.start_ns), FormatDuration(s.dur_ns));
    }
  } else {
    out += "\nsteps       none found\n";
  }

  if (r.gpu_timeline) {
    const GpuTimeline& g = *r.gpu_timeline;
    out += fmt::format("\ndevice time breakdown ({}, TraceLens gpu_timeline definitions, all devices)\n",
                       DeviceKind(g));
    auto row = [&](std::string_view name, int64_t ns) {
      out += fmt::format("  {:<22}{:>14.6f} ms {}\n", name, Ms(ns), Pct(ns, g.total_ns));
    };
    row("computation", g.computation_ns);
    row("exposed communication", g.exposed_comm_ns);
    row("exposed memcpy", g.exposed_memcpy_ns);
    row("busy", g.busy_ns);
    row("idle", g.idle_ns);
    row("total", g.total_ns);
    row("total communication", g.total_comm_ns);
    row("total memcpy", g.total_memcpy_ns);
  }
  if (!r.step_trace_time.empty()) {
    out += "\nAscend overlap analysis per step (step_trace_time.csv, us)\n";
    out += fmt::format("  {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", "step", "computing",
                       "comm(not ov)", "overlapped", "comm", "free", "stage", "preparing");
    auto us = [](int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e3); };
    for (const StepTraceTime& s : r.step_trace_time) {
      out += fmt::format("  {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n", s.step_id, us(s.computing_ns),
                         us(s.comm_not_overlapped_ns), us(s.overlapped_ns), us(s.communication_ns), us(s.free_ns),
                         us(s.stage_ns), us(s.preparing_ns));
    }
  }

  OpsTable(&out, fmt::format("top host ops by self time (of {})", r.ops.cpu.size()),
           TopOps(r.ops.cpu, OpSortKey::kSelf, r.top));
  OpsTable(&out, fmt::format("top host ops by total time (of {})", r.ops.cpu.size()),
           TopOps(r.ops.cpu, OpSortKey::kTotal, r.top));
  OpsTable(&out, fmt::format("top device kernels by total time (of {})", r.ops.device.size()),
           TopOps(r.ops.device, OpSortKey::kTotal, r.top));

  nlohmann::ordered_json stats = ImportStatsToJson(t.stats);
  if (stats.empty()) {
    out += "\nimport stats: no problems\n";
  } else {
    out += "\nimport stats\n";
    for (const auto& s : stats) {
      out += fmt::format("  {:<24} {:<10} {:>8}  {}\n", s["name"].get<std::string>(), s["severity"].get<std::string>(),
                         s["count"].get<int64_t>(), s["description"].get<std::string>());
    }
  }
  return out;
}

}  // namespace cprof::cli
