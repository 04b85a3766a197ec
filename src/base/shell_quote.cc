#include "base/shell_quote.h"

#include <vector>

namespace cprof {

std::string ShellQuote(std::string_view s) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-:=,+@";
  if (!s.empty() && s.find_first_not_of(kPlain) == std::string_view::npos) return std::string(s);
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return q + "'";
}

ShellQuoting ShellQuoteContext(std::string_view text, size_t pos) {
  // One frame per nesting level: the quoting inside it, and how it closes (')' or '`'; 0 at the
  // top). A $( or ` starts a frame with no quoting, also inside double quotes.
  struct Frame {
    ShellQuoting quoting = ShellQuoting::kNone;
    char closer = 0;
  };
  std::vector<Frame> stack(1);
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    Frame& f = stack.back();
    const char c = text[i];
    if (f.quoting == ShellQuoting::kSingle) {
      if (c == '\'') f.quoting = ShellQuoting::kNone;
      continue;
    }
    if (c == '\\') {
      ++i;  // the next character is literal (in double quotes only \ $ ` " and newline are, but
      continue;  // skipping any one is what matters here: it neither opens nor closes anything)
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '(') {
      stack.push_back({ShellQuoting::kNone, ')'});
      ++i;
      continue;
    }
    if (c == '`') {
      if (f.closer == '`') {
        stack.pop_back();
      } else {
        stack.push_back({ShellQuoting::kNone, '`'});
      }
      continue;
    }
    if (f.quoting == ShellQuoting::kDouble) {
      if (c == '"') f.quoting = ShellQuoting::kNone;
      continue;
    }
    if (c == '\'') f.quoting = ShellQuoting::kSingle;
    else if (c == '"') f.quoting = ShellQuoting::kDouble;
    else if (c == ')' && f.closer == ')' && stack.size() > 1) stack.pop_back();
  }
  return stack.back().quoting;
}

}  // namespace cprof
