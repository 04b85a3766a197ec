// Trace -> RankSummary.
#include "analysis/cluster/rank_summary.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/overlap_analysis.h"
#include "analysis/step_detector.h"

namespace cprof {
namespace {

int64_t UsToNs(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  if (it == row.end() || !it->is_number()) return 0;
  return std::llround(it->get<double>() * 1000.0);
}

// communication.json keys steps "step50" where step_trace_time.csv says 50: one spelling, "50".
std::string StepLabel(std::string s) {
  if (s.size() > 4 && s.starts_with("step") &&
      s.find_first_not_of("0123456789", 4) == std::string::npos) {
    return s.substr(4);
  }
  return s;
}

std::string Text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

void StepsFromTable(const Trace& t, RankSummary* s) {
  auto rows = nlohmann::json::parse(t.MetadataText("ascend_step_trace"), nullptr, false);
  if (!rows.is_array()) return;
  for (const auto& r : rows) {
    RankStep st;
    st.step = r.contains("step") ? Text(r["step"]) : "";
    st.computing_ns = UsToNs(r, "computing");
    st.comm_not_overlapped_ns = UsToNs(r, "communication_not_overlapped");
    st.overlapped_ns = UsToNs(r, "overlapped");
    st.communication_ns = UsToNs(r, "communication");
    st.free_ns = UsToNs(r, "free");
    st.stage_ns = UsToNs(r, "stage");
    st.bubble_ns = UsToNs(r, "bubble");
    st.preparing_ns = UsToNs(r, "preparing");
    s->steps.push_back(st);
  }
  s->step_source = t.MetadataText("export_type") == "db" ? "analysis.db StepTraceTime" : "step_trace_time.csv";
}

void StepsFromTrace(const Trace& t, RankSummary* s) {
  for (const StepTraceTime& r : ComputeStepTraceTime(t, DetectSteps(t))) {
    s->steps.push_back({.step = r.step_id < 0 ? "all" : std::to_string(r.step_id),
                        .computing_ns = r.computing_ns,
                        .comm_not_overlapped_ns = r.comm_not_overlapped_ns,
                        .overlapped_ns = r.overlapped_ns,
                        .communication_ns = r.communication_ns,
                        .free_ns = r.free_ns,
                        .stage_ns = r.stage_ns,
                        .bubble_ns = r.bubble_ns,
                        .preparing_ns = r.preparing_ns});
  }
  s->step_source = "trace (Overlap Analysis)";
}

// The value of arg `key` (interned id) of slice `row` as an integer, if present.
std::optional<int64_t> IntArg(const Trace& t, uint32_t row, std::optional<StringId> key) {
  if (!key) return std::nullopt;
  auto v = t.args.Find(t.slices.arg_set_id[row], *key);
  if (!v) return std::nullopt;
  if (v->type == Value::Type::kInt) return v->i;
  if (v->type == Value::Type::kUint) return static_cast<int64_t>(v->u);
  if (v->type == Value::Type::kDouble) return std::llround(v->d);
  return std::nullopt;
}

std::string StrArg(const Trace& t, uint32_t row, std::optional<StringId> key) {
  if (!key) return "";
  auto v = t.args.Find(t.slices.arg_set_id[row], *key);
  return v && v->type == Value::Type::kString ? std::string(t.Str(v->s)) : "";
}

void CommOps(const Trace& t, RankSummary* s) {
  auto k_elapse = t.strings.Find("comm.elapse_time_ns");
  if (k_elapse) {
    auto k_transit = t.strings.Find("comm.transit_time_ns"), k_wait = t.strings.Find("comm.wait_time_ns"),
         k_sync = t.strings.Find("comm.synchronization_time_ns"), k_idle = t.strings.Find("comm.idle_time_ns"),
         k_step = t.strings.Find("comm.step"), k_kind = t.strings.Find("comm.kind"),
         k_group = t.strings.Find("comm.group");
    for (uint32_t i = 0; i < t.slices.size(); ++i) {
      auto elapse = IntArg(t, i, k_elapse);
      if (!elapse) continue;
      s->ops.push_back({.step = StepLabel(StrArg(t, i, k_step)),
                        .kind = StrArg(t, i, k_kind),
                        .group = StrArg(t, i, k_group),
                        .name = std::string(t.Str(t.slices.name_id[i])),
                        .start_ns = t.slices.ts_ns[i],
                        .elapse_ns = *elapse,
                        .transit_ns = IntArg(t, i, k_transit).value_or(0),
                        .wait_ns = IntArg(t, i, k_wait).value_or(0),
                        .sync_ns = IntArg(t, i, k_sync).value_or(0),
                        .idle_ns = IntArg(t, i, k_idle).value_or(0),
                        .has_wait = true});
    }
    if (!s->ops.empty()) return;
  }
  // No communication analysis: the HCCL op rows of the trace (start and duration only).
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    TrackId tr = t.slices.track_id[i];
    if (tr == kNoTrack || t.tracks.kind[Index(tr)] != TrackKind::kCommunication) continue;
    std::string_view name = t.Str(t.slices.name_id[i]);
    if (!name.starts_with("hcom_")) continue;
    s->ops.push_back({.kind = "collective",
                      .group = std::string(t.Str(t.tracks.name_id[Index(tr)])),
                      .name = std::string(name),
                      .start_ns = t.slices.ts_ns[i],
                      .elapse_ns = t.slices.dur_ns[i]});
  }
}

void Links(const Trace& t, RankSummary* s) {
  auto links = nlohmann::json::parse(t.MetadataText("communication_matrix"), nullptr, false);
  if (!links.is_array()) return;
  for (const auto& l : links) {
    s->links.push_back({.step = StepLabel(l.value("step", "")),
                        .op = l.value("op", ""),
                        .group = l.value("group", ""),
                        .transport = l.value("transport", ""),
                        .op_name = l.value("op_name", ""),
                        .src_rank = l.value("src_rank", int64_t{-1}),
                        .dst_rank = l.value("dst_rank", int64_t{-1}),
                        .size_mb = l.value("transit_size_mb", 0.0),
                        .time_ms = l.value("transit_time_ms", 0.0),
                        .bandwidth_gbps = l.value("bandwidth_gbps", 0.0)});
  }
}

}  // namespace

RankSummary SummarizeRank(const Trace& t, bool prefer_trace_steps) {
  RankSummary s;
  s.path = t.MetadataText(meta::kSourcePath);
  s.source_format = t.MetadataText(meta::kSourceFormat);
  if (auto r = t.Metadata(meta::kRank); r && r->type == Value::Type::kInt) s.rank = r->i;
  const bool has_table = !t.MetadataText("ascend_step_trace").empty();
  if (prefer_trace_steps && HasOverlapAnalysis(t)) {
    StepsFromTrace(t, &s);
  } else if (has_table) {
    StepsFromTable(t, &s);
  } else if (HasOverlapAnalysis(t)) {
    StepsFromTrace(t, &s);
  }
  CommOps(t, &s);
  Links(t, &s);
  if (std::string m = t.MetadataText("missing_files"); !m.empty()) s.notes.push_back("missing: " + m);
  for (const char* key : {"import_problems", "import_cross_checks"}) {
    auto lines = nlohmann::json::parse(t.MetadataText(key), nullptr, false);
    if (!lines.is_array()) continue;
    for (const auto& l : lines) {
      std::string line = l.is_string() ? l.get<std::string>() : l.dump();
      // Only problems and failed checks are notes; passing checks are not news.
      if (std::string_view(key) == "import_problems" || line.find("matches") == std::string::npos) {
        if (line.find("match the imported") == std::string::npos) s.notes.push_back(line);
      }
    }
  }
  s.import_errors = t.stats.CountAtLeast(Severity::kError);
  return s;
}

}  // namespace cprof
