// Step detection: ProfilerStep#N, then step-like annotations, then repeated top-level spans.
#include "analysis/step_detector.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <regex>
#include <unordered_map>

namespace cprof {
namespace {

constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> ProfilerStepNumber(std::string_view name) {
  if (!name.starts_with(kProfilerStepPrefix)) return std::nullopt;
  return ParseInt(name.substr(kProfilerStepPrefix.size()));
}

// What a step-like annotation name says: its pattern (the name without its number) and number.
struct StepLikeName {
  std::string pattern;
  std::optional<int64_t> number;
};

std::optional<StepLikeName> MatchStepLikeName(std::string_view name) {
  static const std::regex kRe(
      R"(^\s*((?:(?:train|training|eval|val|valid|test|inference|infer|decode|prefill)[\s_#:.-]*)?(?:step|iteration|iter)[\s_#:=.-]*)(\d+)?\s*$)",
      std::regex::icase | std::regex::optimize);
  if (name.size() > 64) return std::nullopt;
  std::cmatch m;
  if (!std::regex_match(name.data(), name.data() + name.size(), m, kRe)) return std::nullopt;
  StepLikeName out;
  out.pattern = m[1].str();
  if (m[2].matched) out.number = ParseInt(std::string_view(m[2].first, m[2].length()));
  return out;
}

bool IsHostThread(const Trace& t, uint32_t track) { return t.tracks.kind[track] == TrackKind::kThread; }

// Runtime/driver API calls (cudaDeviceSynchronize, cuLaunchKernel, hipMemcpy, aclrtSynchronize,
// ncclAllReduce) repeat at the top level of a thread but are never steps.
bool IsRuntimeApiName(std::string_view name) {
  auto lower_then_upper = [&](std::string_view prefix) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           std::isupper(static_cast<unsigned char>(name[prefix.size()]));
  };
  return lower_then_upper("cuda") || lower_then_upper("cu") || lower_then_upper("hip") ||
         lower_then_upper("acl") || lower_then_upper("aclrt") || lower_then_upper("nccl") ||
         lower_then_upper("rccl") || lower_then_upper("hccl") || lower_then_upper("nvtx") ||
         name.starts_with("AscendCL@") || name.starts_with("Node@");
}

// Also the pauses and fetches `trace`'s Python shim records around the program's work: garbage
// collections (category gc) and DataLoader fetches (dataloader) recur in any loop, once or more per
// step, and are never the step (a script without markers had its 18 GC pauses taken for steps).
bool IsNeverStepCategory(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "cuda_sync" || cat == "runtime" ||
         cat == "driver" || cat == "gc" || cat == "dataloader";
}

Step MakeStep(const Trace& t, uint32_t row, int64_t id, StepSource source) {
  Step s;
  s.id = id;
  s.start_ns = t.slices.ts_ns[row];
  s.dur_ns = t.slices.dur_ns[row];
  s.name = std::string(t.Str(t.slices.name_id[row]));
  s.source = source;
  s.slice_row = row;
  return s;
}

void SortByStart(std::vector<Step>* steps) {
  std::stable_sort(steps->begin(), steps->end(),
                   [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
}

// torch.profiler's loop (`for ...: work(); prof.step()`) opens one more ProfilerStep at its last
// prof.step(), which the profiler's exit closes at once: 9 steps for 8 iterations, the last of
// 0.05 ms against 150 (min(step) read it, the mean was 8/9 of the real one). It holds at most the
// record_function's own aten::empty (PyTorch 1.x), so it is told by its length and its emptiness:
// a last step shorter than kTailShare of the others' median, with at most kTailSlices slices
// inside it on its track, is left out. A short last step that ran operators is a step.
constexpr double kTailShare = 0.05;
constexpr int kTailSlices = 1;
void DropShortTailStep(const Trace& t, std::vector<Step>* steps) {
  if (steps->size() < 3) return;
  auto last = std::max_element(steps->begin(), steps->end(),
                               [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
  std::vector<int64_t> others;
  for (auto it = steps->begin(); it != steps->end(); ++it)
    if (it != last) others.push_back(it->dur_ns);
  std::nth_element(others.begin(), others.begin() + others.size() / 2, others.end());
  if (static_cast<double>(last->dur_ns) >= kTailShare * static_cast<double>(others[others.size() / 2])) return;
  // Slices are sorted by (track, start, longer first): those inside the step follow its row.
  const uint32_t row = last->slice_row;
  const uint32_t track_end = t.track_slices(t.slices.track_id[row]).second;
  int inside = 0;
  for (uint32_t r = row + 1; r < track_end && t.slices.ts_ns[r] < t.slice_end(row) && inside <= kTailSlices; ++r)
    ++inside;
  if (inside <= kTailSlices) steps->erase(last);
}

// Rule 1.
std::vector<Step> FromProfilerSteps(const Trace& t) {
  std::vector<std::optional<int64_t>> number_of(t.strings.size());
  std::vector<bool> checked(t.strings.size(), false);
  auto number = [&](StringId id) -> std::optional<int64_t> {
    uint32_t i = Index(id);
    if (!checked[i]) {
      checked[i] = true;
      number_of[i] = ProfilerStepNumber(t.Str(id));
    }
    return number_of[i];
  };
  std::vector<uint32_t> best_rows;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (!IsHostThread(t, track) || t.HoldsSampledFrames(TrackId{track})) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    std::vector<uint32_t> rows;
    for (uint32_t r = b; r < e; ++r) {
      if (t.slices.dur_ns[r] < 0 || !number(t.slices.name_id[r])) continue;
      bool nested = false;
      for (SliceId p = t.slices.parent_id[r]; p != kNoSlice; p = t.slices.parent_id[Index(p)]) {
        if (number(t.slices.name_id[Index(p)])) {
          nested = true;
          break;
        }
      }
      if (!nested) rows.push_back(r);
    }
    if (rows.size() > best_rows.size()) best_rows = std::move(rows);
  }
  std::vector<Step> steps;
  for (uint32_t r : best_rows) {
    steps.push_back(MakeStep(t, r, *number(t.slices.name_id[r]), StepSource::kProfilerStep));
  }
  DropShortTailStep(t, &steps);
  return steps;
}

// Rule 2.
std::vector<Step> FromStepLikeAnnotations(const Trace& t) {
  std::unordered_map<uint32_t, std::optional<StepLikeName>> cache;
  struct Group {
    std::vector<uint32_t> rows;
    int64_t total = 0;
  };
  std::map<std::pair<uint32_t, std::string>, Group> groups;  // (track, pattern)
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (!IsHostThread(t, track) || t.HoldsSampledFrames(TrackId{track})) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      if (t.slices.dur_ns[r] < 0) continue;
      uint32_t name = Index(t.slices.name_id[r]);
      auto it = cache.find(name);
      if (it == cache.end()) it = cache.emplace(name, MatchStepLikeName(t.Str(StringId{name}))).first;
      if (!it->second) continue;
      std::string key = it->second->pattern;
      std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
      Group& g = groups[{track, key}];
      g.rows.push_back(r);
      g.total += t.slices.dur_ns[r];
    }
  }
  const Group* best = nullptr;
  for (const auto& [key, g] : groups) {
    if (g.rows.size() < 2) continue;
    if (!best || g.rows.size() > best->rows.size() ||
        (g.rows.size() == best->rows.size() && g.total > best->total)) {
      best = &g;
    }
  }
  std::vector<Step> steps;
  if (!best) return steps;
  for (uint32_t r : best->rows) {
    const auto& match = cache[Index(t.slices.name_id[r])];
    steps.push_back(MakeStep(t, r, match->number.value_or(-1), StepSource::kUserAnnotation));
  }
  SortByStart(&steps);
  bool all_numbered = std::all_of(steps.begin(), steps.end(), [](const Step& s) { return s.id >= 0; });
  if (!all_numbered) {
    for (size_t i = 0; i < steps.size(); ++i) steps[i].id = static_cast<int64_t>(i);
  }
  return steps;
}

// Rule 3. Runtime API calls are not candidates (see IsRuntimeApiName).
std::vector<Step> FromRepeatedTopLevelSpans(const Trace& t) {
  std::vector<int8_t> excluded(t.strings.size(), -1);  // per StringId: 1 = runtime name/category
  auto is_excluded = [&](uint32_t r) {
    for (StringId id : {t.slices.name_id[r], t.slices.category_id[r]}) {
      int8_t& v = excluded[Index(id)];
      if (v < 0) v = IsRuntimeApiName(t.Str(id)) || IsNeverStepCategory(t.Str(id)) ? 1 : 0;
      if (v == 1) return true;
    }
    return false;
  };
  auto candidate = [&](uint32_t r) { return t.slices.depth[r] == 0 && t.slices.dur_ns[r] >= 0 && !is_excluded(r); };
  std::optional<uint32_t> busiest;
  int64_t busiest_total = -1;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (!IsHostThread(t, track) || t.HoldsSampledFrames(TrackId{track})) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    int64_t total = 0;
    for (uint32_t r = b; r < e; ++r) {
      if (candidate(r)) total += t.slices.dur_ns[r];
    }
    if (total > busiest_total) {
      busiest_total = total;
      busiest = track;
    }
  }
  std::vector<Step> steps;
  if (!busiest || busiest_total <= 0) return steps;
  struct Group {
    int64_t count = 0;
    int64_t total = 0;
  };
  std::unordered_map<uint32_t, Group> by_name;
  auto [b, e] = t.track_slices(TrackId{*busiest});
  for (uint32_t r = b; r < e; ++r) {
    if (!candidate(r)) continue;
    Group& g = by_name[Index(t.slices.name_id[r])];
    ++g.count;
    g.total += t.slices.dur_ns[r];
  }
  std::optional<uint32_t> best;
  Group best_group;
  for (const auto& [name, g] : by_name) {
    if (g.count < 3) continue;
    bool better = !best || g.total > best_group.total ||
                  (g.total == best_group.total && (g.count > best_group.count ||
                                                   (g.count == best_group.count && name < *best)));
    if (better) {
      best = name;
      best_group = g;
    }
  }
  if (!best) return steps;
  for (uint32_t r = b; r < e; ++r) {
    if (!candidate(r) || Index(t.slices.name_id[r]) != *best) continue;
    steps.push_back(MakeStep(t, r, static_cast<int64_t>(steps.size()), StepSource::kRepeatedSpan));
  }
  return steps;
}

}  // namespace

std::string_view StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep: return "profiler_step";
    case StepSource::kUserAnnotation: return "user_annotation";
    case StepSource::kRepeatedSpan: return "repeated_span";
  }
  return "?";
}

std::vector<Step> DetectSteps(const Trace& trace) {
  std::vector<Step> steps = FromProfilerSteps(trace);
  if (steps.empty()) steps = FromStepLikeAnnotations(trace);
  if (steps.empty()) steps = FromRepeatedTopLevelSpans(trace);
  SortByStart(&steps);
  return steps;
}

std::vector<Step> DetectSteps(const Trace& trace, const TimeWindow& window) {
  std::vector<Step> steps = DetectSteps(trace);
  std::erase_if(steps, [&](const Step& s) { return !window.Contains(s.start_ns); });
  return steps;
}

}  // namespace cprof
