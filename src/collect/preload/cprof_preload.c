/* libcprof_preload.so: the only library `trace` puts into LD_PRELOAD. It depends on libc alone,
 * so shells, compilers and other helpers the target starts pay nothing. Once a process has
 * loaded the libtorch that libcprof_torch.so was built against (linked at startup, or
 * dlopen'ed later as Python's `import torch` does), it loads libcprof_torch.so
 * ($CPROF_TORCH_LIB), which registers the operator observer.
 *
 * It wraps main() (through __libc_start_main) to load the observer once the libraries linked at
 * start-up are initialized, and interposes dlopen() to notice libraries loaded later. A bare file name is resolved the way
 * glibc would for the real caller (its DT_RPATH/DT_RUNPATH, with $ORIGIN) before the real
 * dlopen() is called, so the wrapper does not change what gets loaded. It also interposes
 * _exit() so records buffered by libcprof.so are written when a process ends that way
 * (Python's os._exit in DataLoader workers). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CPROF_TORCH_SONAME
#define CPROF_TORCH_SONAME "libtorch_cpu.so"
#endif

static int g_done;           /* observer loaded, or decided not to */
static int g_main_started;   /* every library constructor of the program has run */
static void (*g_flush)(void); /* libcprof.so's cprof_flush, once it is loaded globally */
static __thread int t_busy;  /* inside our own dlopen() */
static __thread int t_depth; /* dlopen() calls in progress on this thread */

typedef void* (*dlopen_fn)(const char*, int);

static dlopen_fn real_dlopen(void) {
  static dlopen_fn fn;
  if (!fn) fn = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
  return fn;
}

struct torch_search {
  char path[PATH_MAX];
  int found;
};

static int find_torch(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct torch_search* s = (struct torch_search*)data;
  const char* name = info->dlpi_name;
  if (!name || !*name) return 0;
  const char* base = strrchr(name, '/');
  base = base ? base + 1 : name;
  if (strncmp(base, "libtorch_cpu.so", 15) != 0) return 0;
  snprintf(s->path, sizeof(s->path), "%s", name);
  s->found = 1;
  return 1;
}

static void maybe_load_observer(void) {
  if (g_done) return;
  const char* lib = getenv("CPROF_TORCH_LIB");
  if (!lib || !*lib) {
    g_done = 1;
    return;
  }
  struct torch_search s;
  s.found = 0;
  dl_iterate_phdr(find_torch, &s);
  if (!s.found) return;  /* not yet */
  g_done = 1;
  const char* base = strrchr(s.path, '/');
  base = base ? base + 1 : s.path;
  if (strcmp(base, CPROF_TORCH_SONAME) != 0) {
    fprintf(stderr,
            "cann-profiler: PyTorch operators not recorded: this process loaded %s, "
            "libcprof_torch.so was built for %s\n",
            s.path, CPROF_TORCH_SONAME);
    return;
  }
  t_busy = 1;
  void* h = real_dlopen()(lib, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  t_busy = 0;
  if (!h) fprintf(stderr, "cann-profiler: cannot load %s: %s\n", lib, dlerror());
}

/* Looks `file` up in one colon-separated search path (with $ORIGIN = `origin`). */
static int search_path(const char* list, const char* origin, const char* file, char* out, size_t out_size) {
  const char* p = list;
  while (p && *p) {
    const char* colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    char dir[PATH_MAX];
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < sizeof(dir);) {
      if (strncmp(p + i, "$ORIGIN", 7) == 0 || strncmp(p + i, "${ORIGIN}", 9) == 0) {
        size_t skip = p[i + 1] == '{' ? 9 : 7;
        size_t olen = strlen(origin);
        if (n + olen + 1 >= sizeof(dir)) break;
        memcpy(dir + n, origin, olen);
        n += olen;
        i += skip;
      } else {
        dir[n++] = p[i++];
      }
    }
    dir[n] = 0;
    if (n > 0 && snprintf(out, out_size, "%s/%s", dir, file) < (int)out_size && access(out, F_OK) == 0) return 1;
    p = colon ? colon + 1 : NULL;
  }
  return 0;
}

/* What the real caller's DT_RPATH/DT_RUNPATH would have found for a bare `file`, if anything. */
static int resolve_for_caller(const void* caller, const char* file, char* out, size_t out_size) {
  Dl_info info;
  struct link_map* lm = NULL;
  if (!dladdr1(caller, &info, (void**)&lm, RTLD_DL_LINKMAP) || !lm || !lm->l_ld) return 0;
  const char* strtab = NULL;
  const char* rpath = NULL;
  const char* runpath = NULL;
  ElfW(Dyn)* d;
  for (d = lm->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = (const char*)d->d_un.d_ptr;
  }
  if (!strtab) return 0;
  for (d = lm->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_RPATH) rpath = strtab + d->d_un.d_val;
    if (d->d_tag == DT_RUNPATH) runpath = strtab + d->d_un.d_val;
  }
  if (!rpath && !runpath) return 0;
  char origin[PATH_MAX];
  const char* obj = (lm->l_name && *lm->l_name) ? lm->l_name : info.dli_fname;
  if (!obj || !*obj) {
    ssize_t n = readlink("/proc/self/exe", origin, sizeof(origin) - 1);
    if (n <= 0) return 0;
    origin[n] = 0;
  } else {
    snprintf(origin, sizeof(origin), "%s", obj);
  }
  char* slash = strrchr(origin, '/');
  if (slash) *slash = 0;
  /* glibc: DT_RPATH (only without DT_RUNPATH), then LD_LIBRARY_PATH, then DT_RUNPATH. */
  if (rpath && !runpath && search_path(rpath, origin, file, out, out_size)) return 1;
  const char* llp = getenv("LD_LIBRARY_PATH");
  if (llp && search_path(llp, origin, file, out, out_size)) return 1;
  if (runpath && search_path(runpath, origin, file, out, out_size)) return 1;
  return 0;
}

__attribute__((visibility("default"))) void* dlopen(const char* file, int mode) {
  void* h;
  ++t_depth;
  if (file && !strchr(file, '/') && !t_busy) {
    char path[PATH_MAX];
    if (resolve_for_caller(__builtin_return_address(0), file, path, sizeof(path))) {
      h = real_dlopen()(path, mode);
    } else {
      h = real_dlopen()(file, mode);
    }
  } else {
    h = real_dlopen()(file, mode);
  }
  --t_depth;
  /* Only when the outermost dlopen() returns: a dlopen() from a library's constructor runs
   * while the libraries around it (libtorch among them) are mapped but not yet initialized.
   * The same holds while the program's own libraries are being initialized; main() does it. */
  if (h && !g_done && !t_busy && t_depth == 0 && g_main_started) maybe_load_observer();
  if (h && !g_flush && !t_busy && t_depth == 0) g_flush = (void (*)(void))dlsym(RTLD_DEFAULT, "cprof_flush");
  return h;
}

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  /* No dlsym() here: _exit may run in a vfork child, where taking the loader's lock is unsafe. */
  if (g_flush) g_flush();
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

/* The program's main() is wrapped: by then every library linked at start-up (libtorch of a C++
 * program included) has run its constructors, so the observer can be loaded safely. */
typedef int (*main_fn)(int, char**, char**);
static main_fn g_real_main;

static int cprof_main(int argc, char** argv, char** envp) {
  g_main_started = 1;
  maybe_load_observer();
  g_flush = (void (*)(void))dlsym(RTLD_DEFAULT, "cprof_flush");
  return g_real_main(argc, argv, envp);
}

typedef int (*start_main_fn)(main_fn, int, char**, void (*)(void), void (*)(void), void (*)(void), void*);

__attribute__((visibility("default"))) int __libc_start_main(main_fn main, int argc, char** argv,
                                                             void (*init)(void), void (*fini)(void),
                                                             void (*rtld_fini)(void), void* stack_end) {
  start_main_fn real = (start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  g_real_main = main;
  return real(cprof_main, argc, argv, init, fini, rtld_fini, stack_end);
}
