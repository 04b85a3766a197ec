#include "base/url_password.h"

#include <cctype>

namespace cprof {
namespace {

bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every value of a key that ends in "password" (any case: password=, PGPASSWORD=, db_password=):
// a URL's query (?password=pw&...), a libpq key=value string (password = 'a b', with spaces
// around '=' and \' escapes), an environment (PGPASSWORD=a&b: '&' ends a value in a query only).
std::string RedactPasswordValues(std::string text) {
  static constexpr std::string_view kKey = "password";
  for (size_t eq = text.find('='); eq != std::string::npos; eq = text.find('=', eq + 1)) {
    size_t key_end = eq;
    while (key_end > 0 && text[key_end - 1] == ' ') --key_end;
    size_t key = key_end;
    while (key > 0 && WordChar(text[key - 1])) --key;
    if (key_end - key < kKey.size()) continue;
    bool match = true;
    for (size_t i = 0; i < kKey.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(text[key_end - kKey.size() + i])) == kKey[i];
    if (!match) continue;
    const bool in_query = key > 0 && (text[key - 1] == '?' || text[key - 1] == '&');
    size_t start = eq + 1;
    while (start < text.size() && text[start] == ' ') ++start;
    size_t end = start;
    if (start < text.size() && (text[start] == '\'' || text[start] == '"')) {
      const char quote = text[start++];
      for (end = start; end < text.size() && text[end] != quote; ++end)
        if (text[end] == '\\') ++end;
      end = std::min(end, text.size());
    } else {
      end = text.find_first_of(in_query ? " \t\n&#" : " \t\n", start);
      if (end == std::string::npos) end = text.size();
    }
    if (end == start || text.compare(start, end - start, "<redacted>") == 0) continue;
    text.replace(start, end - start, "<redacted>");
    eq = start;
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
