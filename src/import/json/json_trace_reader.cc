// PLACEHOLDER until the .pb reader lands: reports the format as unavailable.
#include "import/json/json_trace_reader.h"

namespace cprof {
namespace {
class JsonTraceReader : public TraceReader {
 public:
  std::string_view name() const override { return "json"; }
  Status Read(const std::string& path, const ImportOptions&, TraceBuilder*) override {
    return Unavailable("{}: reading JSON is not built yet", path);
  }
};
}  // namespace
std::unique_ptr<TraceReader> NewJsonTraceReader() { return std::make_unique<JsonTraceReader>(); }
}  // namespace cprof
