// ModuleSymbolTable: read a module's symbols once, sort, binary-search.
#include "collect/module_symbol_table.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>

namespace cprof {

ModuleSymbolTable::ModuleSymbolTable(Dwfl_Module* module) {
  const int n = dwfl_module_getsymtab(module);
  for (int i = 1; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr = 0;
    GElf_Word shndx = 0;
    const char* name = dwfl_module_getsym_info(module, i, &sym, &addr, &shndx, nullptr, nullptr);
    if (name == nullptr || name[0] == '\0' || shndx == SHN_UNDEF) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_size == 0) continue;
    const int bind = GELF_ST_BIND(sym.st_info);
    const int rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    symbols_.push_back({addr, addr + sym.st_size, name, rank});
  }
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.end != b.end) return a.end > b.end;
    return std::strcmp(a.name, b.name) < 0;  // aliases (C1/C2 constructors): a fixed choice
  });
  // One symbol per start address: the first after sorting (global, then the longest, then by name).
  symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                             [](const Symbol& a, const Symbol& b) { return a.start == b.start; }),
                 symbols_.end());
  for (const Symbol& s : symbols_) max_size_ = std::max(max_size_, s.end - s.start);
}

const char* ModuleSymbolTable::Find(uint64_t addr) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), addr,
                             [](uint64_t a, const Symbol& s) { return a < s.start; });
  // The innermost symbol containing addr: the nearest start below it that still reaches it
  // (symbols may nest, e.g. a local alias inside a larger function).
  for (int steps = 0; it != symbols_.begin() && steps < 64; ++steps) {
    --it;
    if (addr < it->end) return it->name;
    if (addr - it->start >= max_size_) break;
  }
  return nullptr;
}

}  // namespace cprof
