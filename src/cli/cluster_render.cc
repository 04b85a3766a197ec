// JSON and Markdown views of the cluster analysis.
#include "cli/cluster_render.h"

#include <fmt/format.h>

#include "cli/cli_common.h"

namespace cprof::cli {
namespace {

nlohmann::ordered_json StepJson(const RankStep& s) {
  nlohmann::ordered_json j;
  j["step"] = s.step;
  j["computing_ns"] = s.computing_ns;
  j["communication_not_overlapped_ns"] = s.comm_not_overlapped_ns;  // exposed communication
  j["overlapped_ns"] = s.overlapped_ns;
  j["communication_ns"] = s.communication_ns;
  j["free_ns"] = s.free_ns;
  j["bubble_ns"] = s.bubble_ns;
  j["preparing_ns"] = s.preparing_ns;
  j["stage_ns"] = s.stage_ns;
  return j;
}

RankStep MeanStep(const RankSummary& r) {
  RankStep m{.step = "mean"};
  if (r.steps.empty()) return m;
  for (const RankStep& s : r.steps) {
    m.computing_ns += s.computing_ns, m.comm_not_overlapped_ns += s.comm_not_overlapped_ns;
    m.overlapped_ns += s.overlapped_ns, m.communication_ns += s.communication_ns, m.free_ns += s.free_ns;
    m.bubble_ns += s.bubble_ns, m.preparing_ns += s.preparing_ns, m.stage_ns += s.stage_ns;
  }
  int64_t n = static_cast<int64_t>(r.steps.size());
  m.computing_ns /= n, m.comm_not_overlapped_ns /= n, m.overlapped_ns /= n, m.communication_ns /= n;
  m.free_ns /= n, m.bubble_ns /= n, m.preparing_ns /= n, m.stage_ns /= n;
  return m;
}

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

nlohmann::ordered_json ClusterReportToJson(const ClusterReport& r, const ClusterRunInfo& info) {
  nlohmann::ordered_json doc = NewJsonDocument("cluster");
  doc["inputs"] = info.inputs;
  doc["mode"] = info.mode;
  doc["rank_count"] = r.ranks.size();
  doc["duplicate_rank_ids"] = r.duplicate_rank_ids;
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (const RankSummary& s : r.ranks) {
    nlohmann::ordered_json j;
    j["rank"] = s.rank;
    j["path"] = s.path;
    j["source_format"] = s.source_format;
    j["step_source"] = s.step_source;
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const RankStep& st : s.steps) steps.push_back(StepJson(st));
    j["steps"] = steps;
    j["mean_step"] = StepJson(MeanStep(s));
    int64_t elapse = 0, wait = 0, sync = 0, transit = 0, idle = 0;
    for (const RankCommOp& op : s.ops) {
      elapse += op.elapse_ns, wait += op.wait_ns, sync += op.sync_ns, transit += op.transit_ns, idle += op.idle_ns;
    }
    j["communication"] = {{"ops", s.ops.size()},          {"elapse_ns", elapse}, {"wait_ns", wait},
                          {"synchronization_ns", sync},   {"transit_ns", transit}, {"idle_ns", idle}};
    j["notes"] = s.notes;
    j["import_errors"] = s.import_errors;
    ranks.push_back(j);
  }
  doc["ranks"] = ranks;
  nlohmann::ordered_json unreadable = nlohmann::ordered_json::array();
  for (const UnreadableRank& u : r.unreadable) unreadable.push_back({{"path", u.path}, {"reason", u.reason}});
  doc["unreadable_ranks"] = unreadable;
  nlohmann::ordered_json duplicates = nlohmann::ordered_json::array();
  for (const DuplicateRank& d : r.duplicates)
    duplicates.push_back({{"path", d.path}, {"rank", d.rank}, {"kept_path", d.kept_path}});
  doc["duplicate_ranks"] = duplicates;
  doc["missing_ranks"] = r.missing_ranks;
  doc["straggler_test"] = {{"metric", r.metric}, {"note", r.test_note}, {"tests_applied", r.tests_applied}};
  nlohmann::ordered_json slow = nlohmann::ordered_json::array();
  for (const SlowRank& s : r.slow_ranks) {
    nlohmann::ordered_json j;
    j["rank"] = s.rank;
    j["path"] = s.path;
    j["basis"] = s.basis;
    nlohmann::ordered_json tests = nlohmann::ordered_json::array();
    for (const OutlierTestResult& t : s.tests) {
      tests.push_back({{"name", t.name},           {"applicable", t.applicable}, {"fired", t.fired},
                       {"statistic", t.statistic}, {"critical", t.critical},     {"detail", t.detail}});
    }
    j["tests"] = tests;
    j["test"] = s.tests.empty() ? "none (2 ranks)" : [&] {
      std::string fired;
      for (const auto& t : s.tests) {
        if (t.fired) fired += (fired.empty() ? "" : ",") + t.name;
      }
      return fired;
    }();
    j["total_synchronization_wait_ns"] = std::llround(s.metric_ms * 1e6);
    j["median_total_synchronization_wait_ns"] = std::llround(s.metric_median_ms * 1e6);
    j["votes"] = s.votes;
    j["ops_compared"] = s.ops_compared;
    nlohmann::ordered_json cost = nlohmann::ordered_json::object();
    for (const auto& [step, ns] : s.cost_per_step_ns) cost[step] = ns;
    j["cost_per_step_ns"] = cost;
    j["mean_cost_per_step_ns"] = s.mean_cost_per_step_ns;
    j["cost_share_of_step"] = s.cost_share_of_step;
    j["likely_cause"] = s.likely_cause;
    nlohmann::ordered_json ev = nlohmann::ordered_json::array();
    for (const LateOp& o : s.late_ops) {
      ev.push_back({{"step", o.step},
                    {"group", o.group},
                    {"op", o.name},
                    {"ranks", o.ranks},
                    {"wait_ns", o.wait_ns},
                    {"median_peer_wait_ns", o.median_peer_wait_ns},
                    {"lateness_ns", o.lateness_ns}});
    }
    j["evidence"] = ev;
    slow.push_back(j);
  }
  doc["slow_ranks"] = slow;
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.ops.size() && i < 50; ++i) {
    const OpAlignment& o = r.ops[i];
    ops.push_back({{"step", o.step},
                   {"group", o.group},
                   {"op", o.name},
                   {"ranks", o.ranks},
                   {"last_rank", o.last_rank},
                   {"min_wait_ns", o.min_wait_ns},
                   {"median_wait_ns", o.median_wait_ns},
                   {"max_wait_ns", o.max_wait_ns}});
  }
  doc["communication_ops"] = ops;
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const SlowLink& l : r.slow_links) {
    links.push_back({{"step", l.step},
                     {"op", l.op},
                     {"src_rank", l.src_rank},
                     {"dst_rank", l.dst_rank},
                     {"transport", l.transport},
                     {"bandwidth_gbps", l.bandwidth_gbps},
                     {"median_gbps", l.median_gbps},
                     {"ratio", l.ratio},
                     {"transit_size_mb", l.size_mb},
                     {"reason", l.reason}});
  }
  doc["slow_links"] = links;
  nlohmann::ordered_json matrix = nlohmann::ordered_json::array();
  for (const TransportSummary& t : r.transports) {
    matrix.push_back({{"transport", t.transport},
                      {"links", t.links},
                      {"transit_size_mb", t.size_mb},
                      {"transit_time_ms", t.time_ms},
                      {"bandwidth_gbps", t.bandwidth_gbps},
                      {"min_gbps", t.min_gbps},
                      {"median_gbps", t.median_gbps},
                      {"max_gbps", t.max_gbps}});
  }
  doc["communication_matrix"] = matrix;
  doc["elapsed_seconds"] = info.seconds;
  doc["processes"] = info.processes;
  return doc;
}

std::string ClusterReportToMarkdown(const ClusterReport& r, const ClusterRunInfo& info) {
  std::string md = "# Cluster analysis\n\n";
  md += fmt::format("{} rank(s) read ({} mode){}; {} unreadable.\n\n", r.ranks.size(),
                    info.mode == "full_trace" ? "full traces" : "summary tables",
                    r.duplicates.empty() ? "" : fmt::format(", {} more with a rank id already read left out", r.duplicates.size()),
                    r.unreadable.size());
  // An unreadable rank's id is unknown: it may be one of those the links name.
  if (!r.missing_ranks.empty() && r.unreadable.empty())
    md += fmt::format("The communication links name {} more rank(s) that were not given ({}): the job is larger than "
                      "what is analyzed here, and a straggler among them is not seen. Give every rank's folder.\n\n",
                      r.missing_ranks.size(), fmt::join(r.missing_ranks, ", "));
  else if (!r.missing_ranks.empty())
    md += fmt::format("The communication links name {} more rank(s) that were not read ({}): some may be among the {} "
                      "unreadable (listed at the end), the others were not given. A straggler among them is not seen.\n\n",
                      r.missing_ranks.size(), fmt::join(r.missing_ranks, ", "), r.unreadable.size());
  md += "## Slow ranks\n\n";
  md += fmt::format("Test: {}.\n\nMetric: {}.\n\n", r.test_note, r.metric);
  if (r.slow_ranks.empty()) md += "No straggler found.\n\n";
  for (const SlowRank& s : r.slow_ranks) {
    md += fmt::format("### Rank {}\n\n- {}\n- costs the others {:.3f} ms per step ({:.1f}% of a step)\n- likely cause: {}\n",
                      s.rank, s.basis, Ms(s.mean_cost_per_step_ns), s.cost_share_of_step * 100, s.likely_cause);
    for (const OutlierTestResult& t : s.tests) {
      md += fmt::format("- {}: {}{}\n", t.name, t.fired ? "fired" : "did not fire", t.detail.empty() ? "" : " — " + t.detail);
    }
    if (!s.late_ops.empty()) {
      md += "\n| step | op | its wait (ms) | peers' median wait (ms) | peers waited for it (ms) |\n|---|---|---:|---:|---:|\n";
      for (const LateOp& o : s.late_ops) {
        md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", o.step, o.name, Ms(o.wait_ns),
                          Ms(o.median_peer_wait_ns), Ms(o.lateness_ns));
      }
    }
    md += "\n";
  }
  md += "## Per-rank step breakdown (mean per step, ms)\n\n";
  md += "| rank | computing | exposed comm | overlapped | free | bubble | preparing | stage | source |\n";
  md += "|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const RankSummary& s : r.ranks) {
    RankStep m = MeanStep(s);
    md += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} |\n", s.rank,
                      Ms(m.computing_ns), Ms(m.comm_not_overlapped_ns), Ms(m.overlapped_ns), Ms(m.free_ns),
                      Ms(m.bubble_ns), Ms(m.preparing_ns), Ms(m.stage_ns),
                      s.step_source.empty() ? "none" : s.step_source);
  }
  if (!r.duplicates.empty()) {
    md += "\n## Duplicate ranks (left out of the analysis)\n\n";
    for (const DuplicateRank& d : r.duplicates)
      md += fmt::format("- `{}`: rank {} again; `{}` was analyzed\n", d.path, d.rank, d.kept_path);
  }
  if (!r.unreadable.empty()) {
    md += "\n## Unreadable ranks\n\n";
    for (const UnreadableRank& u : r.unreadable) md += fmt::format("- `{}`: {}\n", u.path, u.reason);
  }
  md += "\n## Communication ops with the largest wait spread\n\n";
  md += "| step | op | ranks | last rank | min wait (ms) | median (ms) | max (ms) |\n|---|---|---:|---:|---:|---:|---:|\n";
  for (size_t i = 0; i < r.ops.size() && i < 10; ++i) {
    const OpAlignment& o = r.ops[i];
    md += fmt::format("| {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n", o.step, o.name, o.ranks, o.last_rank,
                      Ms(o.min_wait_ns), Ms(o.median_wait_ns), Ms(o.max_wait_ns));
  }
  md += "\n## Communication matrix\n\n| transport | links | size (MB) | time (ms) | GB/s | min | median | max |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const TransportSummary& t : r.transports) {
    md += fmt::format("| {} | {} | {:.1f} | {:.3f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} |\n", t.transport, t.links,
                      t.size_mb, t.time_ms, t.bandwidth_gbps, t.min_gbps, t.median_gbps, t.max_gbps);
  }
  md += "\n## Slow links\n\n";
  if (r.slow_links.empty()) md += "None.\n";
  for (const SlowLink& l : r.slow_links) {
    md += fmt::format("- {} -> {} ({}, {}): {}\n", l.src_rank, l.dst_rank, l.transport, l.op, l.reason);
  }
  for (const RankSummary& s : r.ranks) {
    for (const std::string& n : s.notes) md += fmt::format("\nNote (rank {}): {}", s.rank, n);
  }
  md += "\n";
  return md;
}

}  // namespace cprof::cli
