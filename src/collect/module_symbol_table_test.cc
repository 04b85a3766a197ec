// ModuleSymbolTable against libdwfl's own lookup, on this test binary: every sized function's
// first, middle and last byte resolve to a symbol that starts where libdwfl's answer starts
// (aliases may differ in name), and addresses outside every function resolve to nothing.
#include "collect/module_symbol_table.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "collect/process_symbols.h"

namespace cprof {
namespace {

extern "C" __attribute__((noinline)) int cprof_symbol_table_probe(int x) { return x * 3 + 1; }

TEST(ModuleSymbolTableTest, AgreesWithLibdwflOnThisBinary) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ASSERT_GT(n, 0);
  exe[n] = '\0';
  Dwfl* dwfl = NewOfflineDwfl();
  ASSERT_NE(dwfl, nullptr);
  dwfl_report_begin(dwfl);
  Dwfl_Module* mod = dwfl_report_offline(dwfl, "self", exe, -1);
  dwfl_report_end(dwfl, nullptr, nullptr);
  ASSERT_NE(mod, nullptr);

  ModuleSymbolTable table(mod);
  ASSERT_GT(table.size(), 1000u);  // gtest and our code: thousands of functions

  int checked = 0;
  bool probe_found = false;
  const int count = dwfl_module_getsymtab(mod);
  for (int i = 1; i < count; ++i) {
    GElf_Sym sym;
    GElf_Addr start = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &start, nullptr, nullptr, nullptr);
    if (name == nullptr || GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0) continue;
    if (checked > 3000) break;  // the quadratic alias check below: a sample is enough
    for (GElf_Addr addr : {start, start + sym.st_size / 2, start + sym.st_size - 1}) {
      GElf_Off off = 0;
      GElf_Sym want;
      const char* dw = dwfl_module_addrinfo(mod, addr, &off, &want, nullptr, nullptr, nullptr);
      const char* ours = table.Find(addr);
      ASSERT_NE(ours, nullptr) << name << " +" << (addr - start);
      ASSERT_NE(dw, nullptr);
      // Same function: libdwfl's symbol starts addr - off; so must ours (looked up by name).
      GElf_Addr ours_start = 0;
      for (int j = 1; j < count && ours_start == 0; ++j) {
        GElf_Sym s;
        GElf_Addr a = 0;
        const char* nm = dwfl_module_getsym_info(mod, j, &s, &a, nullptr, nullptr, nullptr);
        if (nm == ours && a <= addr && addr < a + s.st_size) ours_start = a;
      }
      if (std::string(ours) != dw) {
        EXPECT_EQ(ours_start, addr - off) << ours << " vs " << dw;
      }
      ++checked;
    }
  }
  for (int i = 1; i < count; ++i) {  // a function of this file, by its own name
    GElf_Sym sym;
    GElf_Addr start = 0;
    const char* name = dwfl_module_getsym_info(mod, i, &sym, &start, nullptr, nullptr, nullptr);
    if (name == nullptr || std::string(name) != "cprof_symbol_table_probe") continue;
    EXPECT_STREQ(table.Find(start + 1), "cprof_symbol_table_probe");
    probe_found = true;
  }
  EXPECT_TRUE(probe_found);
  EXPECT_GT(checked, 1000);
  EXPECT_EQ(cprof_symbol_table_probe(1), 4);
  // Below the first function and far past the last: nothing.
  EXPECT_EQ(table.Find(0), nullptr);
  EXPECT_EQ(table.Find(~uint64_t{0} - 16), nullptr);
  dwfl_end(dwfl);
}

}  // namespace
}  // namespace cprof
