#include "base/url_password.h"

#include <cctype>

namespace cprof {
namespace {

bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every value of a key that ends in "password" (any case: password=, PGPASSWORD=, db_password=):
// a URL's query (?password=pw&...), a libpq key=value string (password='a b'), an environment.
std::string RedactPasswordValues(std::string text) {
  static constexpr std::string_view kKey = "password";
  for (size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    size_t key = eq;
    while (key > 0 && WordChar(text[key - 1])) --key;
    if (eq - key < kKey.size()) continue;
    bool match = true;
    for (size_t i = 0; i < kKey.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(text[eq - kKey.size() + i])) == kKey[i];
    if (!match) continue;
    size_t start = eq + 1, end = start;
    if (start < text.size() && (text[start] == '\'' || text[start] == '"')) {
      const size_t close = text.find(text[start], start + 1);
      ++start;
      end = close == std::string::npos ? text.size() : close;
    } else {
      end = text.find_first_of("& \t\n;#", start);
      if (end == std::string::npos) end = text.size();
    }
    if (end == start || text.compare(start, end - start, "<redacted>") == 0) continue;
    text.replace(start, end - start, "<redacted>");
  }
  return text;
}

}  // namespace

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
  return RedactPasswordValues(std::move(text));
}

}  // namespace cprof
