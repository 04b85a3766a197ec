// PLACEHOLDER until the writer lands.
#include "export/chrome/chrome_json_writer.h"

namespace cprof {
Status WriteChromeJson(const Trace&, const std::string& path) {
  return Unavailable("{}: this export format is not built yet", path);
}
}  // namespace cprof
