// Names cut to a table column, still telling different names apart (short_name.h).
#include "base/short_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "base/hash.h"

namespace cprof {
namespace {

// `name` without a trailing "(...)" parameter list; unchanged when it has none.
std::string_view WithoutParameters(std::string_view name) {
  if (!name.ends_with(')')) return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return i > 0 ? name.substr(0, i) : name;
  }
  return name;
}

}  // namespace

std::string Printable(std::string_view text) {
  auto control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  if (std::none_of(text.begin(), text.end(), control)) return std::string(text);
  std::string out;
  for (char c : text) out += control(c) ? fmt::format("\\x{:02x}", static_cast<unsigned char>(c)) : std::string(1, c);
  return out;
}

std::string ShortName(std::string_view raw, size_t width) {
  const std::string printable = Printable(raw);
  const std::string_view name = printable;
  if (name.size() <= width) return std::string(name);
  const std::string tag = fmt::format(" #{:04x}", Fnv1a(name) & 0xffff);
  const size_t room = width - tag.size();
  std::string_view base = WithoutParameters(name);
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  if (base.size() <= room) return std::string(base) + tag;
  const size_t tail = (room - 3) / 3;
  const size_t head = room - 3 - tail;
  return fmt::format("{}...{}{}", base.substr(0, head), base.substr(base.size() - tail), tag);
}

}  // namespace cprof
