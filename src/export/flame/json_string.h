// Appends a string as a JSON string literal: quotes, escapes, and invalid UTF-8 replaced by
// U+FFFD, so any trace string yields valid JSON.
#pragma once

#include <string>
#include <string_view>

namespace cprof {

void AppendJsonString(std::string_view s, std::string* out);

}  // namespace cprof
