// Words for /bin/sh: one word quoted so the shell reads it back unchanged, and a check of where
// in shell text a position falls (outside quotes, or inside '...' or "...").
//
//   ShellQuote("it's a") == "'it'\''s a'";   ShellQuote("run.pb") == "run.pb"
//   ShellQuoteContext("echo \"x $Y\"", 8) == ShellQuoting::kDouble
#pragma once

#include <string>
#include <string_view>

namespace cprof {

// `s` as one shell word: unchanged when it holds only characters the shell leaves alone
// (letters, digits, _ . / - : = , + @), else in single quotes (a ' inside as '\'').
std::string ShellQuote(std::string_view s);

enum class ShellQuoting { kNone, kSingle, kDouble };

// The quoting in force at byte `pos` of POSIX shell text `text` (pos <= text.size()): backslash
// escapes, single and double quotes, and command substitution ($(...) and `...`), in which
// quoting starts afresh, nested. Comments, here-documents and arithmetic are not understood.
ShellQuoting ShellQuoteContext(std::string_view text, size_t pos);

}  // namespace cprof
