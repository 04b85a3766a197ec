// The catalogue of import stats, generated from CPROF_IMPORT_STATS.
#include "model/import_stats.h"

namespace cprof {
namespace {
constexpr ImportStatInfo kInfos[] = {
#define CPROF_STAT_INFO(name, sev, desc) {#name, Severity::sev, desc},
    CPROF_IMPORT_STATS(CPROF_STAT_INFO)
#undef CPROF_STAT_INFO
};
}  // namespace

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kDataLoss: return "data_loss";
    case Severity::kError: return "error";
  }
  return "?";
}

const ImportStatInfo& GetImportStatInfo(ImportStat stat) { return kInfos[static_cast<size_t>(stat)]; }

std::optional<ImportStat> ImportStatFromName(std::string_view name) {
  for (size_t i = 0; i < ImportStats::kCount; ++i) {
    if (kInfos[i].name == name) return static_cast<ImportStat>(i);
  }
  return std::nullopt;
}

int64_t ImportStats::CountAtLeast(Severity min) const {
  int64_t n = 0;
  for (size_t i = 0; i < kCount; ++i) {
    if (kInfos[i].severity >= min) n += counts_[i];
  }
  return n;
}

}  // namespace cprof
