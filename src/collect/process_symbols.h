// ProcessSymbols: one traced process's executable mappings, as the kernel reported them
// (PERF_RECORD_MMAP) or /proc/<pid>/maps lists them, loaded into an elfutils Dwfl for
// symbolization (function and module of an address) and for DWARF unwinding of a user stack
// copied by the kernel (PERF_SAMPLE_STACK_USER + PERF_SAMPLE_REGS_USER).
//
// A file is opened from the path the process mapped when an address in it is first symbolized
// or unwound through (a PyTorch process maps ~300 libraries, its samples touch a few dozen); a
// process that has exited still symbolizes as long as its files exist. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

struct Dwfl;
struct Dwfl_Module;

namespace cprof {

class ModuleSymbolTable;

struct Mapping {
  uint64_t start = 0, end = 0, pgoff = 0;
  std::string path;
  bool reported = false;  // ProcessSymbols: its file was given to the Dwfl (or can't be)
};

struct SymbolizedFrame {
  std::string function;  // demangled; "module+0x1f30" when there is no symbol
  std::string module;    // basename of the mapped file, "[unknown]" outside any mapping
  uint64_t rel_address = 0;  // address within the file's virtual address space
  bool symbolized = false;
};

// A new libdwfl session for files on disk (offline: ELF files found by path or build id, debug
// info by the standard search); nullptr on failure. The caller dwfl_end()s it.
Dwfl* NewOfflineDwfl();

// The x86-64 user registers the sampler asks the kernel for (PERF_SAMPLE_REGS_USER), in the
// kernel's order: AX BX CX DX SI DI BP SP IP R8..R15.
uint64_t UnwindRegisterMask();
inline constexpr int kUnwindRegisterCount = 17;

class ProcessSymbols {
 public:
  explicit ProcessSymbols(pid_t pid);
  ~ProcessSymbols();  // out of line: ModuleSymbolTable is incomplete here
  ProcessSymbols(const ProcessSymbols&) = delete;
  ProcessSymbols& operator=(const ProcessSymbols&) = delete;

  void AddMapping(const Mapping& m);
  // fork(): the child starts with its parent's mappings.
  void CopyMappingsFrom(const ProcessSymbols& parent);
  // exec(): everything mapped before is gone.
  void Reset();
  // Reads the executable mappings of a running process (for --pid).
  void LoadProcMaps();

  // `ip` is a return address when `caller` (so ip-1 is looked up, inside the call).
  const SymbolizedFrame& Symbolize(uint64_t ip, bool caller);

  // DWARF unwinding from the sampled registers and stack copy; pcs innermost first.
  // False when not even the first frame could be unwound.
  bool Unwind(pid_t tid, const uint64_t* regs, const uint8_t* stack, size_t stack_size,
              std::vector<uint64_t>* pcs);

 private:
  struct UnwindContext;
  // Gives the Dwfl the file mapped at `addr` if it has not got it yet; true when it is new.
  bool ReportModuleAt(uint64_t addr);
  Mapping* FindMapping(uint64_t addr);

  pid_t pid_;
  Dwfl* dwfl_ = nullptr;
  bool attached_ = false;
  std::vector<Mapping> mappings_;   // sorted by start
  std::set<std::pair<std::string, uint64_t>> reported_;  // (path, load bias) given to the Dwfl
  std::unordered_map<uint64_t, SymbolizedFrame> cache_;
  // Per module, its function symbols sorted by address, read on the module's first lookup.
  std::unordered_map<Dwfl_Module*, std::unique_ptr<ModuleSymbolTable>> tables_;
  std::unique_ptr<UnwindContext> ctx_;
};

}  // namespace cprof
