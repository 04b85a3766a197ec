// The cann-profiler command line as a function: builds every subcommand, parses, runs the chosen
// one and returns the process exit code. main() is a one-line call; tests call it in-process.
//
//   std::ostringstream out, err;
//   int code = RunCli({"summary", "run.json", "--json"}, out, err);
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cprof::cli {

// `args` excludes the program name. Prints only to `out` and `err`.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace cprof::cli
