// PLACEHOLDER until the .pb reader lands: reports the format as unavailable.
#include "import/perfetto/perfetto_trace_reader.h"

namespace cprof {
namespace {
class PerfettoTraceReader : public TraceReader {
 public:
  std::string_view name() const override { return "perfetto_pb"; }
  Status Read(const std::string& path, const ImportOptions&, TraceBuilder*) override {
    return Unavailable("{}: reading Perfetto protobuf is not built yet", path);
  }
};
}  // namespace
std::unique_ptr<TraceReader> NewPerfettoTraceReader() { return std::make_unique<PerfettoTraceReader>(); }
}  // namespace cprof
