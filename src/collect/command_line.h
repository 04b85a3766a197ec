// Splits a `--target "CMD ARGS"` string into an argv vector the way a POSIX shell would split
// words, without running a shell: no expansion, no redirection, no globbing.
//
//   SplitCommandLine("python3 train.py --name 'my run'")  // {"python3", "train.py", "--name", "my run"}
//
// Supports single quotes (literal), double quotes (backslash escapes \" \\ \$ \`), and backslash
// escapes outside quotes. An unterminated quote or a trailing backslash is kInvalidInput.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace cprof {

StatusOr<std::vector<std::string>> SplitCommandLine(std::string_view text);

// Joins argv back into one line that SplitCommandLine would split the same way (for metadata
// and messages): words with shell-special characters are single-quoted.
std::string JoinCommandLine(const std::vector<std::string>& argv);

}  // namespace cprof
