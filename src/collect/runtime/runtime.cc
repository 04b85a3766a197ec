// libcprof.so: the in-process runtime behind the public SDK (cprof.h) and the internal record
// API (runtime.h). Each thread writes fixed-size records into its own single-producer ring
// buffer with no lock and no system call (TSC timestamps); a background thread appends every
// ring's committed records to `$CPROF_SESSION_DIR/rt-<pid>.bin` every 50 ms, at exit, after
// fork in the child's own file, and on a crash signal. Depends on libc only.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <unordered_map>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define CPROF_HAVE_TSC 1
#endif

#include "collect/runtime/runtime.h"

namespace {

constexpr uint32_t kRingBlocks = 1u << 15;  // 32768 records = 1 MiB per thread
constexpr uint32_t kRingMask = kRingBlocks - 1;
constexpr int64_t kFlushPeriodNs = 50 * 1000 * 1000;

struct Ring {
  cprof_record* buf = nullptr;
  std::atomic<uint64_t> write{0};  // producer: blocks committed
  std::atomic<uint64_t> read{0};   // flusher (under g.mu): blocks written out
  uint64_t pending = 0;            // producer: where the open reservation starts
  uint64_t read_cache = 0;         // producer's last view of `read`
  int32_t tid = 0;
  std::atomic<bool> dead{false};   // its thread exited; freed after its last flush
  Ring* next = nullptr;
};

struct Global {
  std::atomic<int> enabled{0};
  bool tsc = false;
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;  // rings list, file, strings
  int fd = -1;
  pid_t file_pid = 0;
  const char* dir = nullptr;  // $CPROF_SESSION_DIR
  Ring* rings = nullptr;
  std::unordered_map<std::string, uint32_t>* strings = nullptr;
  uint32_t next_string = 1;
  std::atomic<uint64_t> dropped{0};
  bool flusher_started = false;
  std::atomic<bool> stopping{false};
  pthread_key_t ring_key = 0;
  uint32_t step_name = 0;
  double ticks_per_ns = 1.0;
};

// constinit: no dynamic initializer may run after Init() (a constructor function) and undo it.
constinit Global g;
__thread Ring* t_ring __attribute__((tls_model("initial-exec"))) = nullptr;

int64_t MonoNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

inline uint64_t Now() {
#ifdef CPROF_HAVE_TSC
  if (__builtin_expect(g.tsc, 1)) return __rdtsc();
#endif
  return static_cast<uint64_t>(MonoNs());
}

bool InvariantTsc() {
#ifdef CPROF_HAVE_TSC
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007) return false;
  __get_cpuid(0x80000007, &a, &b, &c, &d);
  return (d >> 8) & 1;  // invariant TSC: constant rate in every P-/C-state
#else
  return false;
#endif
}

// A (TSC, CLOCK_MONOTONIC) pair read as close together as possible.
void ClockPair(uint64_t* tsc, int64_t* mono) {
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 3; ++i) {
    uint64_t t0 = Now();
    int64_t m = MonoNs();
    uint64_t t1 = Now();
    if (t1 - t0 < best_gap) {
      best_gap = t1 - t0;
      *tsc = t0 + (t1 - t0) / 2;
      *mono = m;
    }
  }
}

bool WriteAll(int fd, const iovec* iov, int n) {
  // writev may write part; finish the rest piece by piece.
  ssize_t total = 0;
  for (int i = 0; i < n; ++i) total += static_cast<ssize_t>(iov[i].iov_len);
  ssize_t w = writev(fd, iov, n);
  if (w == total) return true;
  if (w < 0) return false;
  for (int i = 0; i < n; ++i) {
    const char* p = static_cast<const char*>(iov[i].iov_base);
    size_t len = iov[i].iov_len;
    if (w >= static_cast<ssize_t>(len)) {
      w -= static_cast<ssize_t>(len);
      continue;
    }
    p += w;
    len -= static_cast<size_t>(w);
    w = 0;
    while (len > 0) {
      ssize_t k = write(fd, p, len);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return false;
      p += k;
      len -= static_cast<size_t>(k);
    }
  }
  return true;
}

void WriteClockLocked() {
  if (g.fd < 0 || !g.tsc) return;
  cprof_record r{};
  r.kind = CPROF_REC_CLOCK;
  int64_t mono;
  ClockPair(&r.ts, &mono);
  r.a = static_cast<uint64_t>(mono);
  iovec iov{&r, sizeof(r)};
  WriteAll(g.fd, &iov, 1);
}

// Writes out one ring's committed records (the only consumer; g.mu held).
void FlushRingLocked(Ring* r) {
  uint64_t w = r->write.load(std::memory_order_acquire);
  uint64_t rd = r->read.load(std::memory_order_relaxed);
  if (w == rd) return;
  if (g.fd < 0) {
    g.dropped.fetch_add(w - rd, std::memory_order_relaxed);
    r->read.store(w, std::memory_order_release);
    return;
  }
  cprof_record chunk{};
  chunk.kind = CPROF_REC_CHUNK;
  chunk.a = static_cast<uint64_t>(r->tid);
  chunk.b = w - rd;
  iovec iov[3];
  int n = 0;
  iov[n++] = {&chunk, sizeof(chunk)};
  uint32_t from = static_cast<uint32_t>(rd & kRingMask);
  uint64_t count = w - rd;
  uint64_t first = std::min<uint64_t>(count, kRingBlocks - from);
  iov[n++] = {r->buf + from, first * sizeof(cprof_record)};
  if (count > first) iov[n++] = {r->buf, (count - first) * sizeof(cprof_record)};
  if (!WriteAll(g.fd, iov, n)) g.dropped.fetch_add(count, std::memory_order_relaxed);
  r->read.store(w, std::memory_order_release);
}

void FlushAllLocked() {
  if (g.file_pid != getpid()) return;  // a fork child that has not written yet
  WriteClockLocked();
  for (Ring** pp = &g.rings; *pp != nullptr;) {
    Ring* r = *pp;
    bool dead = r->dead.load(std::memory_order_acquire);
    FlushRingLocked(r);
    if (dead) {
      *pp = r->next;
      munmap(r->buf, kRingBlocks * sizeof(cprof_record));
      delete r;
      continue;
    }
    pp = &r->next;
  }
}

void WriteStringLocked(uint32_t id, const std::string& s);

// Opens this process's record file (g.mu held). After fork, the child gets its own file and
// the strings its parent defined, so ids it inherited stay meaningful.
bool OpenFileLocked() {
  pid_t pid = getpid();
  if (g.file_pid == pid) return g.fd >= 0;
  if (g.fd >= 0) close(g.fd);
  g.file_pid = pid;
  std::string path = std::string(g.dir) + "/rt-" + std::to_string(pid) + ".bin";
  g.fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (g.fd < 0) return false;
  cprof_file_header h{};
  memcpy(h.magic, CPROF_FILE_MAGIC, 8);
  h.version = CPROF_FILE_VERSION;
  h.header_size = sizeof(h);
  h.pid = pid;
  h.ppid = getppid();
  h.clock_kind = g.tsc ? CPROF_CLOCK_TSC : CPROF_CLOCK_NS;
  ClockPair(&h.tsc0, &h.mono0_ns);
  h.ticks_per_ns = g.ticks_per_ns;
  iovec iov{&h, sizeof(h)};
  WriteAll(g.fd, &iov, 1);
  for (const auto& [s, id] : *g.strings) WriteStringLocked(id, s);
  return true;
}

void* FlusherMain(void*) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);  // signals belong to the application's threads
  timespec period{0, kFlushPeriodNs};
  while (!g.stopping.load(std::memory_order_relaxed)) {
    nanosleep(&period, nullptr);
    pthread_mutex_lock(&g.mu);
    if (g.file_pid == getpid()) FlushAllLocked();
    pthread_mutex_unlock(&g.mu);
  }
  return nullptr;
}

void StartFlusherLocked() {
  if (g.flusher_started) return;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  if (pthread_create(&t, &attr, FlusherMain, nullptr) == 0) {
    g.flusher_started = true;
    pthread_setname_np(t, "cprof-flush");
  }
  pthread_attr_destroy(&attr);
}

void OnThreadExit(void* p) {
  static_cast<Ring*>(p)->dead.store(true, std::memory_order_release);
}

// First record of a thread (or the first after fork): its ring, the file, the flusher.
Ring* SlowGetRing() {
  if (!g.enabled.load(std::memory_order_relaxed)) return nullptr;
  void* mem = mmap(nullptr, kRingBlocks * sizeof(cprof_record), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return nullptr;
  Ring* r = new Ring();
  r->buf = static_cast<cprof_record*>(mem);
  r->tid = static_cast<int32_t>(syscall(SYS_gettid));
  pthread_mutex_lock(&g.mu);
  OpenFileLocked();
  StartFlusherLocked();
  r->next = g.rings;
  g.rings = r;
  pthread_mutex_unlock(&g.mu);
  t_ring = r;
  pthread_setspecific(g.ring_key, r);
  return r;
}

// The ring is full: write it out now, on this thread.
void SlowMakeRoom(Ring* r) {
  pthread_mutex_lock(&g.mu);
  OpenFileLocked();
  FlushRingLocked(r);
  pthread_mutex_unlock(&g.mu);
  r->read_cache = r->read.load(std::memory_order_acquire);
}

inline cprof_record* Reserve(unsigned blocks) {
  Ring* r = t_ring;
  if (__builtin_expect(r == nullptr, 0)) {
    r = SlowGetRing();
    if (r == nullptr) return nullptr;
  }
  uint64_t w = r->write.load(std::memory_order_relaxed);
  uint32_t idx = static_cast<uint32_t>(w & kRingMask);
  uint32_t pad = idx + blocks > kRingBlocks ? kRingBlocks - idx : 0;
  if (__builtin_expect(w + pad + blocks - r->read_cache > kRingBlocks, 0)) {
    r->read_cache = r->read.load(std::memory_order_acquire);
    if (w + pad + blocks - r->read_cache > kRingBlocks) SlowMakeRoom(r);
  }
  if (pad != 0) {
    cprof_record* p = &r->buf[idx];
    p->kind = CPROF_REC_PAD;
    p->n_ext = static_cast<uint8_t>(pad - 1);
    w += pad;
  }
  r->pending = w;
  return &r->buf[w & kRingMask];
}

inline void Commit(unsigned blocks) {
  Ring* r = t_ring;
  r->write.store(r->pending + blocks, std::memory_order_release);
}

void WriteStringLocked(uint32_t id, const std::string& s) {
  // Straight to the file (g.mu held): used when a fork child's file opens.
  size_t len = std::min<size_t>(s.size(), (CPROF_RT_MAX_BLOCKS - 1) * sizeof(cprof_record));
  unsigned ext = static_cast<unsigned>((len + sizeof(cprof_record) - 1) / sizeof(cprof_record));
  cprof_record blocks[CPROF_RT_MAX_BLOCKS] = {};
  blocks[0].kind = CPROF_REC_STRING;
  blocks[0].n_ext = static_cast<uint8_t>(ext);
  blocks[0].name = id;
  blocks[0].a = len;
  memcpy(&blocks[1], s.data(), len);
  cprof_record chunk{};
  chunk.kind = CPROF_REC_CHUNK;
  chunk.a = static_cast<uint64_t>(syscall(SYS_gettid));
  chunk.b = 1 + ext;
  iovec iov[2] = {{&chunk, sizeof(chunk)}, {blocks, (1 + ext) * sizeof(cprof_record)}};
  WriteAll(g.fd, iov, 2);
}

uint32_t Intern(const char* s, size_t len) {
  if (!g.enabled.load(std::memory_order_relaxed) || s == nullptr) return 0;
  if (len == 0) return 0;
  len = std::min<size_t>(len, (CPROF_RT_MAX_BLOCKS - 1) * sizeof(cprof_record));
  std::string key(s, len);
  uint32_t id;
  pthread_mutex_lock(&g.mu);
  auto it = g.strings->find(key);
  if (it != g.strings->end()) {
    id = it->second;
    pthread_mutex_unlock(&g.mu);
    return id;
  }
  id = g.next_string++;
  g.strings->emplace(key, id);
  pthread_mutex_unlock(&g.mu);
  unsigned ext = static_cast<unsigned>((len + sizeof(cprof_record) - 1) / sizeof(cprof_record));
  cprof_record* r = Reserve(1 + ext);
  if (r == nullptr) return id;
  r->kind = CPROF_REC_STRING;
  r->n_ext = static_cast<uint8_t>(ext);
  r->flags = 0;
  r->name = id;
  r->ts = 0;
  r->a = len;
  r->b = 0;
  // The extension blocks may wrap? No: Reserve returns contiguous blocks.
  memset(r + 1, 0, ext * sizeof(cprof_record));
  memcpy(r + 1, s, len);
  Commit(1 + ext);
  return id;
}

inline void Simple(uint8_t kind, uint16_t flags, uint32_t name, uint64_t ts, uint64_t a, uint64_t b) {
  cprof_record* r = Reserve(1);
  if (r == nullptr) return;
  r->kind = kind;
  r->n_ext = 0;
  r->flags = flags;
  r->name = name;
  r->ts = ts;
  r->a = a;
  r->b = b;
  Commit(1);
}

// Crash signals: write out what every thread committed, then let the signal do what it did.
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_old_crash[std::size(kCrashSignals)];

void OnCrash(int sig, siginfo_t* info, void*) {
  if (pthread_mutex_trylock(&g.mu) == 0) {
    if (g.file_pid == getpid()) FlushAllLocked();
    pthread_mutex_unlock(&g.mu);
  }
  for (size_t i = 0; i < std::size(kCrashSignals); ++i) {
    if (kCrashSignals[i] == sig) sigaction(sig, &g_old_crash[i], nullptr);
  }
  // Returning re-runs a faulting instruction (now with the old disposition); abort() and
  // signals sent by kill() are raised again.
  if (sig == SIGABRT || info == nullptr || info->si_code <= 0) raise(sig);
}

void InstallCrashHandlers() {
  for (size_t i = 0; i < std::size(kCrashSignals); ++i) {
    struct sigaction old {};
    sigaction(kCrashSignals[i], nullptr, &old);
    if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;  // someone else's
    struct sigaction sa {};
    sa.sa_sigaction = OnCrash;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    g_old_crash[i] = old;
    sigaction(kCrashSignals[i], &sa, nullptr);
  }
}

void AtForkPrepare() { pthread_mutex_lock(&g.mu); }
void AtForkParent() { pthread_mutex_unlock(&g.mu); }
void AtForkChild() {
  // The child has one thread. Records in the inherited rings are the parent's to write: drop
  // the list (the memory is the child's copy; leaked, it is small) and start over lazily.
  pthread_mutex_init(&g.mu, nullptr);
  g.rings = nullptr;
  t_ring = nullptr;
  g.flusher_started = false;
  if (g.fd >= 0) close(g.fd);
  g.fd = -1;
  g.file_pid = 0;
}

__attribute__((constructor)) void Init() {
  const char* dir = getenv("CPROF_SESSION_DIR");
  if (dir == nullptr || *dir == '\0') return;
  g.dir = strdup(dir);
  g.strings = new std::unordered_map<std::string, uint32_t>();
  g.tsc = InvariantTsc() && getenv("CPROF_NO_TSC") == nullptr;
  if (g.tsc) {
    // A first rate for processes too short for two flushes; the reader refines it.
    uint64_t t0, t1;
    int64_t m0, m1;
    ClockPair(&t0, &m0);
    do {
      ClockPair(&t1, &m1);
    } while (m1 - m0 < 200000);
    g.ticks_per_ns = static_cast<double>(t1 - t0) / static_cast<double>(m1 - m0);
  }
  pthread_key_create(&g.ring_key, OnThreadExit);
  pthread_atfork(AtForkPrepare, AtForkParent, AtForkChild);
  InstallCrashHandlers();
  g.enabled.store(1, std::memory_order_release);
  static const char kStep[] = "ProfilerStep";
  g.step_name = Intern(kStep, sizeof(kStep) - 1);
}

__attribute__((destructor)) void Fini() {
  if (!g.enabled.load()) return;
  g.stopping.store(true);
  pthread_mutex_lock(&g.mu);
  FlushAllLocked();
  pthread_mutex_unlock(&g.mu);
}

}  // namespace

extern "C" {

CPROF_API int cprof_enabled(void) { return g.enabled.load(std::memory_order_relaxed); }

CPROF_API cprof_name_t cprof_name(const char* name) {
  return name == nullptr ? 0 : Intern(name, strlen(name));
}

CPROF_API void cprof_span_begin(cprof_name_t name) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_SPAN_BEGIN, 0, name, Now(), 0, 0);
}

CPROF_API void cprof_span_end(cprof_name_t name) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_SPAN_END, 0, name, Now(), 0, 0);
}

CPROF_API void cprof_span_ns(cprof_name_t name, cprof_name_t category, int64_t start_ns, int64_t end_ns) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_SPAN, CPROF_FLAG_NS, name, static_cast<uint64_t>(start_ns),
         static_cast<uint64_t>(end_ns), category);
}

CPROF_API void cprof_counter(cprof_name_t name, double value) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  Simple(CPROF_REC_COUNTER, 0, name, Now(), bits, 0);
}

CPROF_API void cprof_step(int64_t step) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_STEP, 0, g.step_name, Now(), static_cast<uint64_t>(step), 0);
}

CPROF_API void cprof_step_end(void) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_STEP_END, 0, g.step_name, Now(), 0, 0);
}

CPROF_API void cprof_mark(cprof_name_t name) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_INSTANT, 0, name, Now(), 0, 0);
}

CPROF_API void cprof_thread_name(const char* name) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  uint32_t id = cprof_name(name);
  Simple(CPROF_REC_THREAD_NAME, 0, id, Now(), static_cast<uint64_t>(syscall(SYS_gettid)), 0);
}

CPROF_API void cprof_metadata(const char* key, const char* value) {
  if (!g.enabled.load(std::memory_order_relaxed) || key == nullptr || value == nullptr) return;
  uint32_t k = cprof_name(key), v = cprof_name(value);
  Simple(CPROF_REC_METADATA, 0, k, Now(), v, 0);
}

CPROF_API int64_t cprof_now_ns(void) { return MonoNs(); }

CPROF_API void cprof_flush(void) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  // trylock: also called from _exit() (the preload stub), maybe in a vfork child.
  if (pthread_mutex_trylock(&g.mu) != 0) return;
  if (g.file_pid == getpid()) FlushAllLocked();
  pthread_mutex_unlock(&g.mu);
}

CPROF_API cprof_record* cprof_rt_reserve(unsigned blocks) {
  if (!g.enabled.load(std::memory_order_relaxed) || blocks == 0 || blocks > CPROF_RT_MAX_BLOCKS) {
    return nullptr;
  }
  return Reserve(blocks);
}

CPROF_API void cprof_rt_commit(void) {
  Ring* r = t_ring;
  // The reservation's size: the record's own block plus its extension blocks.
  cprof_record* head = &r->buf[r->pending & kRingMask];
  r->write.store(r->pending + 1 + head->n_ext, std::memory_order_release);
}

CPROF_API uint64_t cprof_rt_now(void) { return Now(); }

CPROF_API uint32_t cprof_rt_intern(const char* s, size_t len) { return Intern(s, len); }

CPROF_API void cprof_rt_py_sample(int64_t tid, uint32_t stack, int64_t ts_ns) {
  if (!g.enabled.load(std::memory_order_relaxed)) return;
  Simple(CPROF_REC_PY_SAMPLE, CPROF_FLAG_NS, stack, static_cast<uint64_t>(ts_ns),
         static_cast<uint64_t>(tid), 0);
}

CPROF_API uint64_t cprof_rt_dropped(void) { return g.dropped.load(std::memory_order_relaxed); }

}  // extern "C"
