// libFuzzer target: the other text `tune` reads — the diagnose report behind --from_diagnosis
// (YAML or JSON findings -> a guided space), Kernel Tuner cache records (the replay evaluator),
// --objective specs, and the constraint/condition expression language (parsed with every
// identifier known, then evaluated on a few values). Each parser gets the whole input.
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_tune_config -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tune/diagnosis_guidance.h"
#include "tune/expression.h"
#include "tune/kernel_tuner_cache.h"
#include "tune/objective.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cprof::tune;
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ParseDiagnosisGuidance(text, "fuzz.yaml", /*require_knobs=*/false);
  (void)ParseKernelTunerCache(text, "fuzz.json", /*with_records=*/true);
  (void)ParseObjectives(text, "latency_ms");
  // Identifiers get slots in order of appearance; the values cycle through int, float, string.
  std::map<std::string, int, std::less<>> slots;
  auto resolve = [&](std::string_view name) -> std::optional<int> {
    auto [it, added] = slots.try_emplace(std::string(name), static_cast<int>(slots.size()));
    return it->second;
  };
  cprof::StatusOr<Expression> e = Expression::Parse(text, resolve);
  if (e.ok()) {
    std::vector<Value> values;
    for (size_t i = 0; i < slots.size(); ++i) {
      switch (i % 3) {
        case 0: values.emplace_back(static_cast<int64_t>(i) - 1); break;
        case 1: values.emplace_back(0.5 * static_cast<double>(i)); break;
        default: values.emplace_back(std::string("sgd")); break;
      }
    }
    (void)e->Evaluate(values);
    (void)e->EvaluateBool(values);
  }
  return 0;
}
