"""The Python shim `cann-profiler trace` puts on PYTHONPATH: Python's site module imports it at
start-up in every Python process of the traced workload. It records, through the cprof SDK:

- garbage-collection pauses (gc.callbacks), one span per collection, category "gc";
- DataLoader batch fetches (each `next()` on a DataLoader iterator), category "dataloader";
- sampled Python stacks (a daemon thread, at CPROF_PY_SAMPLE_HZ), which `trace` turns into
  python_function spans;
- metadata: Python version and argv, and at exit the PyTorch version and thread-pool size.

Then it runs the sitecustomize it shadows (Debian ships one), so nothing else changes.
Without CPROF_SESSION_DIR it does nothing but that.
"""
import os
import sys


def _chain_original():
    """Imports the next sitecustomize on sys.path, the one this file hides."""
    here = os.path.dirname(os.path.abspath(__file__))
    me = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    except Exception as e:  # the original's own errors are reported as site.py would
        print("Error in sitecustomize; set PYTHONVERBOSE for traceback: %s" % (e,), file=sys.stderr)
    finally:
        sys.path[:] = saved
        if me is not None:
            sys.modules["sitecustomize"] = me


def _short_file(path):
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:]) if len(parts) > 1 else path


def _install():
    import atexit
    import gc
    import threading
    import time

    import cprof

    if not cprof.enabled():
        return
    lib = cprof._lib
    now = time.monotonic_ns
    cprof.metadata("python_version", sys.version.split()[0])
    # Secrets are taken out by the collector (host_metadata.h RedactedArgv), as for command_line.
    cprof.metadata("python_argv", " ".join(sys.argv) if sys.argv else "")

    # Threads started from Python carry their threading name into the trace (the kernel's name,
    # which the trace used, is the program's: three `worker-N` threads all read "python3").
    bootstrap = getattr(threading.Thread, "_bootstrap_inner", None)
    if bootstrap is not None:

        def _named_bootstrap(self):
            try:
                cprof.thread_name(self.name)
            except Exception:  # never break the program's thread for a name
                pass
            return bootstrap(self)

        threading.Thread._bootstrap_inner = _named_bootstrap

    # Garbage collection pauses.
    gc_names = [cprof._name("gc.collect gen%d" % g) for g in range(3)]
    gc_category = cprof._name("gc")
    gc_start = [0]

    def on_gc(phase, info):
        if phase == "start":
            gc_start[0] = now()
        elif gc_start[0]:
            lib.cprof_span_ns(gc_names[min(info.get("generation", 0), 2)], gc_category, gc_start[0], now())
            gc_start[0] = 0

    gc.callbacks.append(on_gc)

    # DataLoader fetches: wrap the iterator's __next__ once torch.utils.data is imported.
    def patch_dataloader(module):
        base = getattr(module, "_BaseDataLoaderIter", None)
        if base is None or getattr(base, "_cprof_patched", False):
            return
        original = base.__next__
        name, category = cprof._name("DataLoader.__next__"), cprof._name("dataloader")

        def __next__(self):
            t0 = now()
            try:
                return original(self)
            finally:
                lib.cprof_span_ns(name, category, t0, now())

        base.__next__ = __next__
        base._cprof_patched = True

    _after_import("torch.utils.data.dataloader", patch_dataloader)

    # DataLoader worker processes name their thread "DataLoader worker N" (they never set a
    # name: each read as its parent, "python3"). The loop is wrapped where the DataLoader looks it
    # up when it starts a worker; a spawned worker unpickles it by the same name.
    def patch_worker_loop(module):
        loop = getattr(module, "_worker_loop", None)
        if loop is None or getattr(loop, "_cprof_patched", False):
            return
        import functools
        import inspect

        try:
            signature = inspect.signature(loop)
        except (TypeError, ValueError):
            return

        @functools.wraps(loop)
        def _worker_loop(*args, **kwargs):
            try:
                worker = signature.bind_partial(*args, **kwargs).arguments.get("worker_id")
                cprof.thread_name("DataLoader worker" if worker is None else "DataLoader worker %s" % worker)
            except Exception:  # never break the worker for a name
                pass
            return loop(*args, **kwargs)

        _worker_loop._cprof_patched = True
        module._worker_loop = _worker_loop

    _after_import("torch.utils.data._utils.worker", patch_worker_loop)

    # Sampled Python stacks.
    hz = float(os.environ.get("CPROF_PY_SAMPLE_HZ", "0") or 0)
    if hz > 0:
        _start_sampler(lib, min(hz, 100.0))

    def at_exit():
        torch = sys.modules.get("torch")
        if torch is not None:
            cprof.metadata("torch_version", getattr(torch, "__version__", "?"))
            try:
                cprof.metadata("torch_intra_op_threads", torch.get_num_threads())
            except Exception:
                pass
        cprof.flush()

    atexit.register(at_exit)


def _start_sampler(lib, hz):
    import atexit
    import threading
    import time

    period = 1.0 / hz
    stacks = {}  # tuple of code objects -> string id
    me = []
    # Stopped (and joined) at exit, before the interpreter finalizes: a daemon thread still
    # running then is killed with pthread_exit wherever it takes the GIL back, and when that is
    # inside a tensor's deallocator (the sampler can hold the last reference to a finished
    # thread's frame) the unwind through C++ aborts the whole process.
    stop = threading.Event()
    threads = []

    def stack_id(frame):
        codes = []
        f = frame
        while f is not None and len(codes) < 64:
            codes.append(f.f_code)
            f = f.f_back
        key = tuple(codes)
        sid = stacks.get(key)
        if sid is None:
            text = ";".join("%s(%d): %s" % (_short_file(c.co_filename), c.co_firstlineno, c.co_name)
                            for c in reversed(codes))
            sid = lib.cprof_name(text.encode("utf-8", "replace"))
            stacks[key] = sid
        return sid

    def run():
        me.append(threading.get_ident())
        while not stop.wait(period):
            try:
                frames = sys._current_frames()
                ts = time.monotonic_ns()
                active = threading._active  # ident -> Thread
                for ident, frame in frames.items():
                    if ident == me[0]:
                        continue
                    t = active.get(ident)
                    tid = getattr(t, "native_id", None) if t is not None else None
                    if tid is None:
                        continue
                    lib.cprof_rt_py_sample(tid, stack_id(frame), ts)
                del frames
            except Exception:
                pass

    def start():
        t = threading.Thread(target=run, name="cprof-py-sampler", daemon=True)
        threads[:] = [t]
        t.start()

    def stop_at_exit():
        stop.set()
        for t in threads:
            t.join(timeout=2.0)

    start()
    atexit.register(stop_at_exit)

    # Forked children (DataLoader workers) have no sampler thread: start one there.
    def in_child():
        me.clear()
        stacks.clear()
        start()

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=in_child)


class _PostImportFinder:
    """Runs callbacks right after a module is imported (a meta path finder that wraps the real
    loader of the watched modules)."""

    def __init__(self):
        self.hooks = {}

    def find_spec(self, name, path=None, target=None):
        hooks = self.hooks.pop(name, None)
        if not hooks:
            return None
        import importlib.util

        try:
            spec = importlib.util.find_spec(name)
        finally:
            pass
        if spec is None or spec.loader is None:
            return None
        exec_module = spec.loader.exec_module

        def exec_and_hook(module):
            exec_module(module)
            for hook in hooks:
                try:
                    hook(module)
                except Exception:
                    pass

        spec.loader.exec_module = exec_and_hook
        return spec


_finder = None


def _after_import(name, hook):
    global _finder
    if name in sys.modules:
        hook(sys.modules[name])
        return
    if _finder is None:
        _finder = _PostImportFinder()
        sys.meta_path.insert(0, _finder)
    _finder.hooks.setdefault(name, []).append(hook)


_chain_original()
if os.environ.get("CPROF_SESSION_DIR"):
    try:
        _install()
    except Exception as e:  # the shim must never break the workload
        print("cann-profiler: Python shim disabled: %s" % (e,), file=sys.stderr)
