// Model values as JSON.
#include "cli/json_values.h"

namespace cprof::cli {

nlohmann::ordered_json ValueToJson(const Trace& trace, const Value& v) {
  switch (v.type) {
    case Value::Type::kNull: return nullptr;
    case Value::Type::kInt: return v.i;
    case Value::Type::kUint: return v.u;
    case Value::Type::kDouble: return v.d;
    case Value::Type::kBool: return v.b;
    case Value::Type::kString: {
      std::string_view s = trace.Str(v.s);
      if (!s.empty() && (s.front() == '{' || s.front() == '[')) {
        nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(s, nullptr, /*allow_exceptions=*/false);
        if (!parsed.is_discarded()) return parsed;
      }
      return std::string(s);
    }
  }
  return nullptr;
}

nlohmann::ordered_json MetadataToJson(const Trace& trace) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (size_t i = 0; i < trace.metadata.size(); ++i) {
    out[std::string(trace.Str(trace.metadata.key_id[i]))] = ValueToJson(trace, trace.metadata.value[i]);
  }
  return out;
}

nlohmann::ordered_json ImportStatsToJson(const ImportStats& stats) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ImportStats::kCount; ++i) {
    auto stat = static_cast<ImportStat>(i);
    int64_t n = stats.Get(stat);
    if (n == 0) continue;
    const ImportStatInfo& info = GetImportStatInfo(stat);
    out.push_back({{"name", info.name},
                   {"severity", SeverityName(info.severity)},
                   {"count", n},
                   {"description", info.description}});
  }
  return out;
}

}  // namespace cprof::cli
