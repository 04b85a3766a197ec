// The cann-profiler executable: everything happens in RunCli.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli_app.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Installed under another name, the program is that subcommand (cann-auto-tune = tune).
  std::string name = argc > 0 ? argv[0] : "";
  name = name.substr(name.find_last_of('/') + 1);
  return cprof::cli::RunCli(args, std::cout, std::cerr, name.empty() ? "cann-profiler" : name);
}
