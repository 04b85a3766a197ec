// Helpers shared by the host-side rules (host_rule_util.h).
#include "analysis/diagnose/rules/host_rule_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace cprof::host_rules {
namespace {

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); });
  return it != hay.end();
}

}  // namespace

std::string Ms(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns >= 10'000'000'000) return fmt::format("{:.1f} s", v / 1e9);
  if (ns >= 1'000'000'000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 10'000'000) return fmt::format("{:.0f} ms", v / 1e6);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", v / 1e6);
  return fmt::format("{:.0f} us", v / 1e3);
}

std::string Pct(double ratio) { return fmt::format("{:.0f}%", ratio * 100.0); }

bool IsInputPipelineFrame(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kWords = {
      "dataloader", "dataset", "__getitem__", "__getitems__", "collate", "_next_data",
      "fetch",      "sampler", "decode",      "transform",    "augment", "prefetch"};
  for (std::string_view w : kWords)
    if (ContainsNoCase(name, w)) return true;
  return false;
}

bool IsDataLoaderSpan(const Trace& trace, uint32_t row) {
  if (trace.Str(trace.slices.category_id[row]) == "dataloader") return true;
  return ContainsNoCase(trace.Str(trace.slices.name_id[row]), "dataloader");
}

bool IsOperator(const Trace& trace, uint32_t row) {
  // Operators are namespaced (aten::, torchvision::, npu::, autograd::engine::...); the category
  // alone does not tell, since profilers write record_function spans such as ProfilerStep#N
  // as cpu_op too.
  return trace.Str(trace.slices.name_id[row]).find("::") != std::string_view::npos;
}

bool IsNestedOperator(const Trace& trace, uint32_t row) {
  const SliceId p = trace.slices.parent_id[row];
  return p != kNoSlice && IsOperator(trace, Index(p));
}

int64_t TotalStepNs(const std::vector<Step>& steps) {
  int64_t sum = 0;
  for (const Step& s : steps) sum += s.dur_ns;
  return sum;
}

int64_t StepAt(const std::vector<Step>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](int64_t t, const Step& s) { return t < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return ts < it->end_ns() ? static_cast<int64_t>(it - steps.begin()) : -1;
}

std::vector<std::vector<int64_t>> InputDims(const Trace& trace, uint32_t row) {
  const ArgSetId args = trace.slices.arg_set_id[row];
  const std::optional<StringId> key = trace.strings.Find("Input Dims");
  if (args == kNoArgs || !key) return {};
  const std::optional<Value> v = trace.args.Find(args, *key);
  if (!v || v->type != Value::Type::kString) return {};
  const std::string_view text = trace.Str(v->s);
  std::vector<std::vector<int64_t>> out;
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '[') {
      if (++depth == 2) out.emplace_back();
      ++i;
    } else if (c == ']') {
      if (--depth < 0) return {};
      ++i;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      int64_t n = 0;
      auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), n);
      if (ec != std::errc() || depth != 2) return {};
      out.back().push_back(n);
      i = static_cast<size_t>(end - text.data());
    } else if (c == ',' || c == ' ') {
      ++i;
    } else {
      return {};
    }
  }
  return depth == 0 ? out : std::vector<std::vector<int64_t>>{};
}

std::optional<int64_t> MetadataInt(const Trace& trace, std::string_view key) {
  std::optional<Value> v = trace.Metadata(key);
  if (!v) return std::nullopt;
  double d = 0;
  if (v->AsDouble(&d)) return static_cast<int64_t>(d);
  if (v->type != Value::Type::kString) return std::nullopt;
  std::string_view s = trace.Str(v->s);
  int64_t out = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  if (r.ec != std::errc() || r.ptr == s.data()) return std::nullopt;
  return out;
}

bool HasEnvironment(const Trace& trace) { return trace.Metadata("environment").has_value(); }

std::optional<std::string> EnvironmentVar(const Trace& trace, std::string_view name) {
  const std::string env = trace.MetadataText("environment");
  if (env.empty()) return std::nullopt;
  const std::string key = "\"" + std::string(name) + "\"";
  size_t pos = 0;
  while ((pos = env.find(key, pos)) != std::string::npos) {
    size_t p = pos + key.size();
    while (p < env.size() && (env[p] == ' ')) ++p;
    if (p >= env.size() || env[p] != ':') {  // a value that happens to spell the key
      pos += key.size();
      continue;
    }
    ++p;
    while (p < env.size() && env[p] == ' ') ++p;
    if (p >= env.size() || env[p] != '"') return std::nullopt;
    std::string value;
    for (++p; p < env.size() && env[p] != '"'; ++p) {
      if (env[p] == '\\' && p + 1 < env.size()) ++p;
      value += env[p];
    }
    return value;
  }
  return std::nullopt;
}

}  // namespace cprof::host_rules
