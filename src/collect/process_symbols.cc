// Symbolization and DWARF unwinding with elfutils libdwfl.
#include "collect/process_symbols.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "base/temp_dir.h"
#include "collect/module_symbol_table.h"

namespace cprof {
namespace {

char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &g_debuginfo_path,
};

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Demangle(const char* name) {
  if (name == nullptr) return {};
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return name;
  std::string s(out);
  free(out);
  return s;
}

// The load bias of the file mapped at `m`: runtime address - address in the file's own layout.
bool LoadBias(const Mapping& m, uint64_t* bias) {
  int fd = open(m.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  bool ok = false;
  size_t n = 0;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &n) == 0) {
    for (size_t i = 0; i < n; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr || ph.p_type != PT_LOAD) continue;
      uint64_t page_off = ph.p_offset & ~static_cast<uint64_t>(0xfff);
      if (m.pgoff >= page_off && m.pgoff < ph.p_offset + std::max<uint64_t>(ph.p_filesz, 1)) {
        *bias = m.start - ph.p_vaddr - m.pgoff + ph.p_offset;
        ok = true;
        break;
      }
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return ok;
}

// The kernel's vDSO has no file; the one mapped into `trace` is the same code the target runs
// (same kernel), so a copy of it serves for symbols and CFI. Written once, removed at exit.
const std::string& VdsoImagePath() {
  static const std::string path = [] {
    auto base = getauxval(AT_SYSINFO_EHDR);
    if (base == 0) return std::string();
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
    if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return std::string();
    size_t size = eh->e_shoff + static_cast<size_t>(eh->e_shnum) * eh->e_shentsize;
    StatusOr<std::string> made = MakeTempDir("cprof-vdso-");
    if (!made.ok()) return std::string();
    const std::string& dir = *made;
    std::string file = dir + "/[vdso]";
    int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return std::string();
    bool ok = write(fd, reinterpret_cast<const void*>(base), size) == static_cast<ssize_t>(size);
    close(fd);
    static std::string cleanup[2] = {file, dir};
    std::atexit([] {
      unlink(cleanup[0].c_str());
      rmdir(cleanup[1].c_str());
    });
    return ok ? file : std::string();
  }();
  return path;
}

bool Reportable(const std::string& path) {
  return !path.empty() && path[0] == '/' && path.find(" (deleted)") == std::string::npos;
}

}  // namespace

Dwfl* NewOfflineDwfl() { return dwfl_begin(&kOfflineCallbacks); }

uint64_t UnwindRegisterMask() {
  // AX BX CX DX SI DI BP SP IP (bits 0-8) and R8..R15 (bits 16-23) of perf_regs.h.
  return 0x1ffull | (0xffull << 16);
}

struct ProcessSymbols::UnwindContext {
  pid_t tid = 0;
  const uint64_t* regs = nullptr;  // kUnwindRegisterCount, kernel order
  const uint8_t* stack = nullptr;
  size_t stack_size = 0;
  uint64_t sp = 0;
  std::vector<uint64_t>* pcs = nullptr;
};

namespace {

pid_t NextThread(Dwfl*, void* arg, void** thread_arg) {
  auto* ctx = static_cast<ProcessSymbols*>(arg);
  (void)ctx;
  *thread_arg = arg;
  return 0;  // threads are only reached through get_thread
}

}  // namespace

ProcessSymbols::ProcessSymbols(pid_t pid) : pid_(pid), ctx_(std::make_unique<UnwindContext>()) {}

ProcessSymbols::~ProcessSymbols() {
  if (dwfl_) dwfl_end(dwfl_);
}

void ProcessSymbols::AddMapping(const Mapping& mapping) {
  Mapping m = mapping;
  m.reported = false;  // a fork's child has its own Dwfl
  if (m.path == "[vdso]" && !VdsoImagePath().empty()) m.path = VdsoImagePath();
  auto it = std::lower_bound(mappings_.begin(), mappings_.end(), m.start,
                             [](const Mapping& x, uint64_t s) { return x.start < s; });
  // A new mapping replaces what it overlaps (munmap + mmap at the same place).
  auto first = it;
  while (first != mappings_.begin() && std::prev(first)->end > m.start) --first;
  auto last = it;
  while (last != mappings_.end() && last->start < m.end) ++last;
  it = mappings_.erase(first, last);
  mappings_.insert(it, m);
  cache_.clear();
}

void ProcessSymbols::CopyMappingsFrom(const ProcessSymbols& parent) {
  for (const Mapping& m : parent.mappings_) AddMapping(m);
}

void ProcessSymbols::Reset() {
  mappings_.clear();
  reported_.clear();
  cache_.clear();
  tables_.clear();  // they point into the Dwfl's modules
  if (dwfl_) dwfl_end(dwfl_);
  dwfl_ = nullptr;
  attached_ = false;
}

void ProcessSymbols::LoadProcMaps() {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/maps");
  std::string line;
  while (std::getline(in, line)) {
    // start-end perms offset dev inode path
    std::istringstream ls(line);
    std::string range, perms, offset, dev, inode, path;
    ls >> range >> perms >> offset >> dev >> inode;
    std::getline(ls, path);
    path.erase(0, path.find_first_not_of(' '));
    if (perms.size() < 3 || perms[2] != 'x') continue;
    Mapping m;
    size_t dash = range.find('-');
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.pgoff = std::stoull(offset, nullptr, 16);
    m.path = path;
    AddMapping(m);
  }
}

bool ProcessSymbols::ReportModuleAt(uint64_t addr) {
  Mapping* m = FindMapping(addr);
  if (m == nullptr || m->reported) return false;
  m->reported = true;
  uint64_t bias = 0;
  if (!Reportable(m->path) || !LoadBias(*m, &bias) || !reported_.emplace(m->path, bias).second) return false;
  if (!dwfl_ && !(dwfl_ = NewOfflineDwfl())) return false;
  dwfl_report_begin_add(dwfl_);
  dwfl_report_elf(dwfl_, Basename(m->path).c_str(), m->path.c_str(), -1, bias, true);
  dwfl_report_end(dwfl_, nullptr, nullptr);
  return true;
}

Mapping* ProcessSymbols::FindMapping(uint64_t addr) {
  auto it = std::upper_bound(mappings_.begin(), mappings_.end(), addr,
                             [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == mappings_.begin()) return nullptr;
  --it;
  return addr < it->end ? &*it : nullptr;
}

const SymbolizedFrame& ProcessSymbols::Symbolize(uint64_t ip, bool caller) {
  uint64_t addr = caller && ip > 0 ? ip - 1 : ip;
  auto [it, fresh] = cache_.try_emplace(addr);
  SymbolizedFrame& f = it->second;
  if (!fresh) return f;
  ReportModuleAt(addr);
  const Mapping* m = FindMapping(addr);
  if (m == nullptr) {
    f.module = "[unknown]";
    f.function = fmt::format("0x{:x}", addr);
    return f;
  }
  f.module = m->path.empty() ? "[anon]" : Basename(m->path);
  f.rel_address = addr - m->start + m->pgoff;
  if (dwfl_ != nullptr) {
    if (Dwfl_Module* mod = dwfl_addrmodule(dwfl_, addr)) {
      std::unique_ptr<ModuleSymbolTable>& table = tables_[mod];
      if (!table) table = std::make_unique<ModuleSymbolTable>(mod);
      const char* name = table->Find(addr);
      if (name != nullptr) {
        f.function = Demangle(name);
        f.symbolized = true;
      }
    }
  }
  if (!f.symbolized) f.function = f.module + "+" + fmt::format("0x{:x}", f.rel_address);
  return f;
}

bool ProcessSymbols::Unwind(pid_t tid, const uint64_t* regs, const uint8_t* stack, size_t stack_size,
                            std::vector<uint64_t>* pcs) {
  pcs->clear();
  ReportModuleAt(regs[8]);  // IP
  if (dwfl_ == nullptr) return false;
  static const Dwfl_Thread_Callbacks kCallbacks = {
      .next_thread = NextThread,
      .get_thread =
          [](Dwfl*, pid_t tid, void* arg, void** thread_arg) {
            auto* self = static_cast<UnwindContext*>(arg);
            *thread_arg = arg;
            return tid == self->tid;
          },
      .memory_read =
          [](Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* arg) {
            auto* self = static_cast<UnwindContext*>(arg);
            // In the copy, without overflow: CFI computed from garbage asks for any address.
            if (addr < self->sp || addr - self->sp > self->stack_size ||
                self->stack_size - (addr - self->sp) < sizeof(Dwarf_Word)) {
              return false;
            }
            std::memcpy(result, self->stack + (addr - self->sp), sizeof(Dwarf_Word));
            return true;
          },
      .set_initial_registers =
          [](Dwfl_Thread* thread, void* arg) {
            auto* self = static_cast<UnwindContext*>(arg);
            const uint64_t* r = self->regs;
            // DWARF x86-64 order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip.
            Dwarf_Word dw[17] = {r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7],
                                 r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16], r[8]};
            return dwfl_thread_state_registers(thread, 0, 17, dw);
          },
      .detach = nullptr,
      .thread_detach = nullptr,
  };
  if (!attached_) {
    if (!dwfl_attach_state(dwfl_, nullptr, pid_, &kCallbacks, ctx_.get())) return false;
    attached_ = true;
  }
  ctx_->tid = tid;
  ctx_->regs = regs;
  ctx_->stack = stack;
  ctx_->stack_size = stack_size;
  ctx_->sp = regs[7];
  ctx_->pcs = pcs;
  // The unwinder stops at a frame whose file the Dwfl has not got: report it and unwind again
  // (a few times per process at most, while its stacks are first seen).
  for (int round = 0; round < 16; ++round) {
    pcs->clear();
    dwfl_getthread_frames(
        dwfl_, tid,
        [](Dwfl_Frame* frame, void* arg) -> int {
          auto* self = static_cast<UnwindContext*>(arg);
          Dwarf_Addr pc = 0;
          bool activation = false;
          if (!dwfl_frame_pc(frame, &pc, &activation) || pc == 0) return DWARF_CB_ABORT;
          self->pcs->push_back(pc);
          return self->pcs->size() >= 256 ? DWARF_CB_ABORT : DWARF_CB_OK;
        },
        ctx_.get());
    if (pcs->empty() || pcs->size() >= 256) break;
    if (!ReportModuleAt(pcs->size() > 1 ? pcs->back() - 1 : pcs->back())) break;
  }
  return pcs->size() > 1;
}

}  // namespace cprof
