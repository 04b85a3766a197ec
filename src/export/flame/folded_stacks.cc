// Folded-stack text from a flame tree.
#include "export/flame/folded_stacks.h"

#include <fmt/format.h>

namespace cprof {
namespace {

void AppendFrame(std::string_view name, std::string* out) {
  for (char c : name) {
    if (c == ';') out->push_back(':');
    else if (c == '\n' || c == '\r') out->push_back(' ');
    else out->push_back(c);
  }
}

}  // namespace

std::string FoldedStacks(const FlameTree& tree) {
  std::vector<int64_t> self = tree.SelfValues();
  std::vector<std::string> path(tree.size());  // the folded path of each node
  std::string out;
  for (uint32_t n = 1; n < tree.size(); ++n) {
    uint32_t p = tree.parent[n];
    if (p != FlameTree::kRoot) {
      path[n] = path[p];
      path[n].push_back(';');
    }
    AppendFrame(tree.name(n), &path[n]);
    if (self[n] > 0) {
      out += path[n];
      out += fmt::format(" {}\n", self[n]);
    }
  }
  return out;
}

}  // namespace cprof
