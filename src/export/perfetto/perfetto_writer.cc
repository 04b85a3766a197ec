// PLACEHOLDER until the writer lands.
#include "export/perfetto/perfetto_writer.h"

namespace cprof {
Status WritePerfettoTrace(const Trace&, const std::string& path) {
  return Unavailable("{}: this export format is not built yet", path);
}
}  // namespace cprof
