// Builds the performance map page: analyses for the summary, flame trees, the data block, the
// HTML shell around the embedded front end.
#include "report/visualize/performance_map.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "analysis/gpu_timeline.h"
#include "analysis/op_stats.h"
#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "export/flame/flame_tree.h"
#include "report/visualize/encoding.h"
#include "report/visualize/html_shell.h"
#include "report/visualize/page_data_encoder.h"
#include "report/visualize/web_bundle.h"

namespace cprof {
namespace {

using nlohmann::json;

constexpr size_t kMaxMetadataText = 400;

std::vector<FlameTree> BuildFlames(const Trace& trace, const TimeWindow& w, const Trace* baseline) {
  std::vector<FlameTree> trees;
  FlameOptions o;
  o.start_ns = w.start_ns;
  o.end_ns = w.end_ns;
  FlameOptions base_o;  // the baseline is compared whole
  auto add = [&](FlameTree tree, auto&& build_baseline) {
    if (tree.value[FlameTree::kRoot] <= 0) return;
    if (baseline) AttachBaseline(&tree, build_baseline());
    trees.push_back(std::move(tree));
  };
  add(BuildSampleFlameTree(trace, o), [&] { return BuildSampleFlameTree(*baseline, base_o); });
  o.tracks = base_o.tracks = FlameTracks::kHost;
  add(BuildSliceFlameTree(trace, o), [&] { return BuildSliceFlameTree(*baseline, base_o); });
  o.tracks = base_o.tracks = FlameTracks::kDevice;
  add(BuildSliceFlameTree(trace, o), [&] { return BuildSliceFlameTree(*baseline, base_o); });
  return trees;
}

json OpStatsJson(const OpStatsTable& ops, size_t top) {
  json out = json::array();
  auto add = [&](const std::vector<OpStat>& list, bool device) {
    for (const OpStat& s : TopOps(list, OpSortKey::kTotal, top)) {
      out.push_back({{"name", s.name}, {"category", device ? "device" : "host"}, {"count", s.count},
                     {"total_ns", s.total_ns}, {"self_ns", s.self_ns}, {"mean_ns", s.mean_ns},
                     {"p50_ns", s.p50_ns}, {"p99_ns", s.p99_ns}, {"device", device}});
    }
  };
  add(ops.device, true);
  add(ops.cpu, false);
  return out;
}

json StepBreakdownJson(const Trace& trace, const TimeWindow& w, const std::vector<Step>& steps) {
  if (steps.empty()) return nullptr;
  DeviceIntervals intervals = CollectDeviceIntervals(trace, w);
  if (intervals.empty()) return nullptr;
  std::vector<StepGpuTimeline> per_step = ComputeGpuTimelinePerStep(intervals, steps);
  json rows = json::array();
  for (size_t i = 0; i < per_step.size() && i < steps.size(); ++i) {
    const GpuTimeline& t = per_step[i].timeline;
    rows.push_back({{"name", steps[i].name},
                    {"values", {t.computation_ns, t.exposed_comm_ns, t.exposed_memcpy_ns, t.idle_ns}}});
  }
  return {{"categories", {"computation", "exposed communication", "exposed memcpy", "idle"}}, {"steps", rows}};
}

json FindingsJson(const Trace& trace, const std::vector<MapFinding>& findings, const PageDataEncoder& enc,
                  PerformanceMapStats* stats) {
  EvidenceResolver resolver(trace);
  json out = json::array();
  for (const MapFinding& f : findings) {
    json ev = json::array();
    for (const EvidenceRef& e : f.evidence) {
      ResolvedEvidence r = resolver.Resolve(e);
      json item = {{"name", e.name}, {"track_path", e.track_path}, {"note", e.note},
                   {"ts_ns", nullptr}, {"dur_ns", nullptr}, {"track", nullptr}, {"slice", nullptr}};
      if (r.ts_ns) item["ts_ns"] = *r.ts_ns - trace.start_ns;
      if (e.dur_ns) item["dur_ns"] = *e.dur_ns;
      if (r.track) item["track"] = Index(*r.track);
      if (r.slice_row) {
        int64_t page_index = enc.SliceIndex(*r.slice_row);
        if (page_index >= 0) item["slice"] = page_index;
        if (!e.dur_ns) item["dur_ns"] = std::max<int64_t>(0, trace.slices.dur_ns[*r.slice_row]);
        if (stats) ++stats->findings_located;
      }
      ev.push_back(std::move(item));
    }
    json item = {{"id", f.id}, {"category", f.category}, {"title", f.title}, {"description", f.description},
                 {"confidence", nullptr}, {"saving_ns", nullptr}, {"evidence", std::move(ev)}};
    if (f.confidence) item["confidence"] = *f.confidence;
    if (f.saving_ns) item["saving_ns"] = *f.saving_ns;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& PerformanceMapViews() {
  static const std::vector<std::string> views = {"timeline", "flamegraph", "heatmap", "summary", "ops", "memory"};
  return views;
}

StatusOr<std::string> RenderPerformanceMap(const Trace& trace, const PerformanceMapOptions& options,
                                           PerformanceMapStats* stats) {
  const WebBundle& bundle = GetWebBundle();
  if (!bundle.available) {
    return Unavailable("this cann-profiler was built without the report front end (web/); install nodejs and npm "
                       "(scripts/setup.sh) and rebuild");
  }
  std::vector<std::string> views = options.views.empty() ? PerformanceMapViews() : options.views;
  for (const std::string& v : views) {
    const auto& known = PerformanceMapViews();
    if (std::find(known.begin(), known.end(), v) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return InvalidInput("unknown view '{}' (known: {})", v, list);
    }
  }

  TimeWindow window;
  if (options.time_range) window = TimeWindow::FromRange(trace, *options.time_range);
  const int64_t start = std::max(window.start_ns, trace.start_ns);
  const int64_t end = std::min(window.end_ns, trace.end_ns);
  if (options.time_range && end <= start) {
    return InvalidInput("--time_range selects nothing: the trace spans {} from its start",
                        FormatDuration(trace.end_ns - trace.start_ns));
  }

  PerformanceMapStats local;
  PerformanceMapStats* st = stats ? stats : &local;
  *st = {};
  std::vector<Step> steps = DetectSteps(trace, window);
  PageDataEncoder encoder(trace, start, std::max(end, start + 1));
  st->slices = encoder.slice_count();
  st->findings = options.findings.size();

  json header;
  header["schema_version"] = 1;
  header["generator"] = "cann-profiler";
  header["title"] = !options.title.empty() ? options.title : trace.MetadataText(meta::kSourcePath);
  header["source_format"] = trace.MetadataText(meta::kSourceFormat);
  header["start_ns"] = std::to_string(trace.start_ns);
  header["range_start_ns"] = start - trace.start_ns;
  header["range_end_ns"] = std::max(end, start + 1) - trace.start_ns;
  header["views"] = views;
  json metadata = json::array();
  for (size_t i = 0; i < trace.metadata.size(); ++i) {
    std::string key(trace.Str(trace.metadata.key_id[i]));
    if (key == meta::kSourcePath || key == meta::kSourceFormat) continue;
    std::string text = trace.MetadataText(key);
    if (text.size() > kMaxMetadataText) text = text.substr(0, kMaxMetadataText) + "…";
    metadata.push_back({key, text});
  }
  header["metadata"] = metadata;
  json step_list = json::array();
  for (const Step& s : steps) {
    step_list.push_back({{"name", s.name}, {"start_ns", s.start_ns - trace.start_ns}, {"dur_ns", s.dur_ns}});
  }
  header["steps"] = step_list;
  header["findings"] = FindingsJson(trace, options.findings, encoder, st);
  header["findings_source"] = options.findings_source;
  header["step_breakdown"] = StepBreakdownJson(trace, window, steps);
  header["op_stats"] = OpStatsJson(ComputeOpStats(trace, window), options.top_ops);
  json import_stats = json::array();
  for (size_t i = 0; i < ImportStats::kCount; ++i) {
    ImportStat stat = static_cast<ImportStat>(i);
    int64_t n = trace.stats.Get(stat);
    if (n == 0) continue;
    const ImportStatInfo& info = GetImportStatInfo(stat);
    import_stats.push_back({{"name", info.name}, {"severity", SeverityName(info.severity)}, {"count", n},
                            {"description", info.description}});
  }
  header["import_stats"] = import_stats;
  header["baseline_title"] = options.baseline ? json(options.baseline_title) : json(nullptr);

  std::vector<FlameTree> flames = BuildFlames(trace, window, options.baseline);
  // Invalid UTF-8 in trace strings becomes U+FFFD rather than an exception.
  std::string header_text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string raw = encoder.Encode(header_text, flames);
  ASSIGN_OR_RETURN(std::string packed, GzipCompress(raw));
  std::string data = Base64Encode(packed);
  st->raw_bytes = raw.size();
  st->data_bytes = data.size();

  std::string page_title = header["title"].get<std::string>();
  std::string html = BuildHtmlPage(bundle, page_title, data);
  st->html_bytes = html.size();
  return html;
}

}  // namespace cprof
