// step_trace_time.csv and op_statistic.csv against the imported trace.
#include "import/ascend/ascend_cross_checks.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "import/ascend/metadata_json.h"
#include "import/ascend/summary_tables_reader.h"

namespace cprof {
namespace {

// The torch_npu step number of "ProfilerStep#50", or -1.
int64_t StepNumber(std::string_view name) {
  if (!name.starts_with("ProfilerStep#")) return -1;
  return ParseCsvInt(name.substr(13)).value_or(-1);
}

// A text cell, or "" when it is missing or not a string (an N/A cell is null; value() would throw).
std::string JsonString(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double JsonNumber(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
}

void CheckStepTrace(AscendImportContext* ctx, std::vector<std::string>* lines) {
  const Trace& t = ctx->b().trace();
  std::string text = t.MetadataText(kAscendStepTraceKey);
  if (text.empty()) return;
  auto rows = nlohmann::json::parse(text, nullptr, false);
  if (!rows.is_array() || rows.empty()) return;

  // Overlap Analysis slices by kind, and ProfilerStep#N starts.
  enum { kComputing, kCommunication, kNotOverlapped, kFree, kKinds };
  std::vector<std::pair<int64_t, std::pair<int, int64_t>>> overlap;  // ts -> (kind, dur)
  std::map<int64_t, int64_t> step_start;                              // step -> cpu start
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    TrackId tr = t.slices.track_id[i];
    std::string_view name = t.Str(t.slices.name_id[i]);
    if (tr != kNoTrack && t.tracks.kind[Index(tr)] == TrackKind::kAnalysis) {
      int kind = name == "Computing"                       ? kComputing
                 : name == "Communication"                 ? kCommunication
                 : name == "Communication(Not Overlapped)" ? kNotOverlapped
                 : name == "Free"                          ? kFree
                                                           : -1;
      if (kind >= 0) overlap.push_back({t.slices.ts_ns[i], {kind, t.slices.dur_ns[i]}});
    } else if (int64_t n = StepNumber(name); n >= 0) {
      auto [it, inserted] = step_start.try_emplace(n, t.slices.ts_ns[i]);
      if (!inserted) it->second = std::min(it->second, t.slices.ts_ns[i]);
    }
  }
  if (overlap.empty()) {
    lines->push_back("step_trace_time.csv: not checked (the trace has no Overlap Analysis slices)");
    return;
  }
  static constexpr const char* kKeys[kKinds] = {"computing", "communication", "communication_not_overlapped", "free"};
  for (const auto& row : rows) {
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    std::string step_text = row.contains("step") ? MetadataJsonText(row["step"]) : "?";
    if (row.contains("step") && row["step"].is_number_integer() && step_start.count(row["step"].get<int64_t>())) {
      auto it = step_start.find(row["step"].get<int64_t>());
      lo = it->second;
      if (std::next(it) != step_start.end()) hi = std::next(it)->second;
    } else if (rows.size() != 1) {
      lines->push_back(fmt::format("step_trace_time.csv step {}: not checked (no ProfilerStep#{} in the trace)",
                                   step_text, step_text));
      continue;
    }
    int64_t sum[kKinds] = {};
    for (const auto& [ts, kd] : overlap) {
      if (ts >= lo && ts < hi) sum[kd.first] += kd.second;
    }
    std::string diffs;
    for (int k = 0; k < kKinds; ++k) {
      double file_us = JsonNumber(row, kKeys[k]), trace_us = sum[k] / 1000.0;
      // The file sums Python floats of 3-decimal values; 0.1 us absorbs their rounding.
      if (std::fabs(file_us - trace_us) > 0.1 + 1e-9 * std::fabs(file_us)) {
        diffs += fmt::format("{}{} is {:.3f} us in the file but {:.3f} us in the trace", diffs.empty() ? "" : "; ",
                             kKeys[k], file_us, trace_us);
      }
    }
    if (diffs.empty()) {
      lines->push_back(fmt::format(
          "step_trace_time.csv step {}: matches the trace (computing {:.3f} us, communication not overlapped "
          "{:.3f} us, free {:.3f} us)",
          step_text, sum[kComputing] / 1000.0, sum[kNotOverlapped] / 1000.0, sum[kFree] / 1000.0));
    } else {
      ctx->b().stats().Add(ImportStat::ascend_step_trace_mismatch);
      lines->push_back(fmt::format("step_trace_time.csv step {}: {}", step_text, diffs));
    }
  }
}

void CheckOpStatistic(AscendImportContext* ctx, std::vector<std::string>* lines) {
  const Trace& t = ctx->b().trace();
  std::string text = t.MetadataText(kAscendOpStatisticKey);
  if (text.empty()) return;
  auto rows = nlohmann::json::parse(text, nullptr, false);
  if (!rows.is_array()) return;
  auto type_key = t.strings.Find("Type");
  auto core_key = t.strings.Find("Accelerator Core");
  if (!type_key) {
    lines->push_back("op_statistic.csv: not checked (no kernel table was imported)");
    return;
  }
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> got;  // -> (count, total ns)
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    auto type = t.args.Find(t.slices.arg_set_id[i], *type_key);
    if (!type || type->type != Value::Type::kString) continue;
    std::string core;
    if (core_key) {
      if (auto c = t.args.Find(t.slices.arg_set_id[i], *core_key); c && c->type == Value::Type::kString) {
        core = t.Str(c->s);
      }
    }
    auto& g = got[{std::string(t.Str(type->s)), core}];
    g.first++;
    g.second += std::max<int64_t>(0, t.slices.dur_ns[i]);
  }
  int checked = 0;
  std::string diffs;
  for (const auto& row : rows) {
    std::string type = JsonString(row, "op_type");
    std::string core = JsonString(row, "core_type");
    int64_t count = row.contains("count") && row["count"].is_number() ? row["count"].get<int64_t>() : -1;
    double total_us = JsonNumber(row, "total_time_us");
    auto it = got.find({type, core});
    int64_t got_count = it == got.end() ? 0 : it->second.first;
    double got_us = it == got.end() ? 0 : it->second.second / 1000.0;
    ++checked;
    // Each kernel's time is written with 3 decimals; allow a rounding step per kernel.
    if (got_count != count || std::fabs(got_us - total_us) > 0.001 * std::max<int64_t>(count, 1) + 0.01) {
      ctx->b().stats().Add(ImportStat::ascend_op_statistic_mismatch);
      diffs += fmt::format("{}{} ({}): {} kernels / {:.3f} us in the file, {} / {:.3f} us imported",
                           diffs.empty() ? "" : "; ", type, core, count, total_us, got_count, got_us);
    }
  }
  if (diffs.empty()) {
    lines->push_back(fmt::format("op_statistic.csv: all {} op types match the imported kernels (count and total time)",
                                 checked));
  } else {
    lines->push_back("op_statistic.csv: " + diffs);
  }
}

}  // namespace

void RunAscendCrossChecks(AscendImportContext* ctx) {
  std::vector<std::string> lines;
  CheckStepTrace(ctx, &lines);
  CheckOpStatistic(ctx, &lines);
  if (!lines.empty()) ctx->b().SetMetadataString("import_cross_checks", MetadataJsonText(nlohmann::json(lines)));
}

}  // namespace cprof
