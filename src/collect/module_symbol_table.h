// ModuleSymbolTable: one ELF module's function symbols sorted by address, for O(log n) lookups.
//
// elfutils' dwfl_module_addrinfo scans the whole symbol table on every lookup (~1 ms per address
// in libtorch_cpu.so, whose table holds hundreds of thousands of symbols); the sampler symbolizes
// thousands of distinct return addresses a second, so the table is read once per module instead.
//
//   ModuleSymbolTable t(mod);                      // a Dwfl_Module* of a reported ELF file
//   if (const char* name = t.Find(addr)) ...       // the function containing addr, or nullptr
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

struct Dwfl_Module;

namespace cprof {

class ModuleSymbolTable {
 public:
  explicit ModuleSymbolTable(Dwfl_Module* module);

  // The name of the sized function symbol containing `addr` (a global one where several start at
  // the same address); nullptr when none does (libdwfl's dwfl_module_addrinfo found none there
  // either in the modules of a traced PyTorch process). The name lives as long as the module.
  const char* Find(uint64_t addr) const;
  size_t size() const { return symbols_.size(); }

 private:
  struct Symbol {
    uint64_t start, end;
    const char* name;
    int rank;  // 0 global, 1 weak, 2 local: the preferred name of an address comes first
  };
  std::vector<Symbol> symbols_;  // sorted by start, one per start address
  uint64_t max_size_ = 0;        // the largest symbol: how far back a containing one can start
};

}  // namespace cprof
