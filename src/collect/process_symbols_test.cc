// ProcessSymbols::Unwind on registers and stacks that make no sense (what a sample taken in the
// middle of a prologue, in JIT code or in a corrupted stack gives the unwinder): it must stop,
// not read outside the copied stack. Frame-pointer rules with RBP near 2^64 once made libdw ask
// for address 2^64-4, which the bounds check let through by overflow.
#include "collect/process_symbols.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <vector>

namespace cprof {
namespace {

extern "C" __attribute__((noinline)) int cprof_unwind_probe(int x) { return x * 5 + 2; }

TEST(ProcessSymbolsTest, UnwindStaysInsideTheCopiedStackWhateverTheRegisters) {
  ProcessSymbols syms(getpid());
  syms.LoadProcMaps();
  // This test binary's executable mapping: IPs to unwind from.
  const uint64_t self_ip = reinterpret_cast<uint64_t>(&cprof_unwind_probe);
  std::vector<uint8_t> stack(4096);
  std::mt19937_64 rng(7);
  for (uint8_t& b : stack) b = static_cast<uint8_t>(rng());
  std::vector<uint64_t> pcs;
  ASSERT_EQ(cprof_unwind_probe(1), 7);
  int unwound = 0;
  for (int i = 0; i < 4000; ++i) {
    uint64_t regs[kUnwindRegisterCount];
    for (uint64_t& r : regs) r = rng();
    regs[6] = UINT64_MAX - 11 - (rng() % 64) * 8;            // RBP: a frame-pointer rule reads RBP+8 = -4 ...
    regs[7] = 0x7ffd00000000ull + (rng() % 4096) * 8;         // SP: a plausible stack
    regs[8] = self_ip - 65536 + rng() % (1 << 17);             // IP: in and around this binary's code
    const bool ok = syms.Unwind(getpid(), regs, stack.data(), stack.size(), &pcs);
    ASSERT_LE(pcs.size(), 256u);
    unwound += ok;
  }
  // Something was unwound: the calls did reach libdw (not all refused before it).
  EXPECT_GT(unwound, 0);
}

}  // namespace
}  // namespace cprof
