// The cann-profiler command line as a function: builds every subcommand, parses, runs the chosen
// one and returns the process exit code. main() is a one-line call; tests call it in-process.
//
//   std::ostringstream out, err;
//   int code = RunCli({"summary", "run.json", "--json"}, out, err);
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::cli {

// `args` excludes the program name. Prints only to `out` and `err`. `program`: the name it runs
// as (argv[0]'s file name); installed as `cann-auto-tune` it is `tune`, and its help says so.
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
           std::string_view program = "cann-profiler");

}  // namespace cprof::cli
