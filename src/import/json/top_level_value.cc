// simdjson DOM reading of small JSON values (the second and last translation unit with simdjson).
#include "import/json/top_level_value.h"

#include <simdjson.h>

namespace cprof::json {
namespace {

std::string_view TrimJson(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<int64_t> TopLevelValue::FindInt(std::string_view key) const {
  if (kind != Kind::kJson) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::object obj;
  if (parser.parse(text.data(), text.size()).get(obj)) return std::nullopt;
  int64_t v;
  if (obj[key].get_int64().get(v)) return std::nullopt;
  return v;
}

StatusOr<TopLevelValue> ParseTopLevelValue(std::string_view raw) {
  raw = TrimJson(raw);
  simdjson::dom::parser parser;
  simdjson::dom::element el;
  if (auto err = parser.parse(raw.data(), raw.size()).get(el)) {
    return InvalidInput("{}", simdjson::error_message(err));
  }
  TopLevelValue v;
  switch (el.type()) {
    case simdjson::dom::element_type::ARRAY:
    case simdjson::dom::element_type::OBJECT:
      v.kind = TopLevelValue::Kind::kJson;
      v.text = std::string(raw);
      break;
    case simdjson::dom::element_type::INT64:
      v.kind = TopLevelValue::Kind::kInt;
      v.i = el.get_int64().value_unsafe();
      break;
    case simdjson::dom::element_type::UINT64:
      v.kind = TopLevelValue::Kind::kUint;
      v.u = el.get_uint64().value_unsafe();
      break;
    case simdjson::dom::element_type::DOUBLE:
      v.kind = TopLevelValue::Kind::kDouble;
      v.d = el.get_double().value_unsafe();
      break;
    case simdjson::dom::element_type::STRING:
      v.kind = TopLevelValue::Kind::kString;
      v.text = std::string(el.get_string().value_unsafe());
      break;
    case simdjson::dom::element_type::BOOL:
      v.kind = TopLevelValue::Kind::kBool;
      v.b = el.get_bool().value_unsafe();
      break;
    case simdjson::dom::element_type::NULL_VALUE:
      break;
  }
  return v;
}

bool IsValidUtf8(std::string_view s) { return simdjson::validate_utf8(s.data(), s.size()); }

}  // namespace cprof::json
