#include "base/url_password.h"

namespace cprof {

std::string RedactUrlPasswords(std::string text) {
  for (size_t scheme = text.find("://"); scheme != std::string::npos; scheme = text.find("://", scheme + 3)) {
    const size_t start = scheme + 3;
    const size_t end = text.find_first_of("/?# \t", start);  // the authority ends here
    const size_t at = text.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at == std::string::npos || at < start) continue;
    const size_t colon = text.find(':', start);
    if (colon == std::string::npos || colon > at) continue;  // user only, no password
    text.replace(colon + 1, at - colon - 1, "<redacted>");
  }
  return text;
}

}  // namespace cprof
