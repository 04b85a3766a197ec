"""cann-profiler SDK for Python: user spans, counters and step markers in the traces that
`cann-profiler trace` collects. Pure Python over libcprof.so (ctypes).

    import cprof

    with cprof.span("decode"):          # a span on this thread
        ...

    @cprof.span("preprocess")           # or around every call of a function
    def preprocess(batch): ...

    for i, batch in enumerate(loader):
        cprof.step(i)                   # step i starts (shown as ProfilerStep#i)
        cprof.counter("queue_depth", len(queue))
    cprof.step_end()                    # the last step ends

    for i, batch in enumerate(loader):
        with cprof.step(i):             # or: the step is the block
            ...

Without `trace` around the process (or without libcprof.so) every call is a cheap no-op.
Spans are timed with time.monotonic_ns(), the trace's clock. Thread-safe.
"""
import ctypes
import functools
import os
import time

__all__ = ["enabled", "span", "step", "step_end", "counter", "mark", "metadata", "thread_name"]


def _load():
    if not os.environ.get("CPROF_SESSION_DIR"):
        return None
    for path in (os.environ.get("CPROF_SDK_LIB"), "libcprof.so"):
        if not path:
            continue
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        lib.cprof_enabled.restype = ctypes.c_int
        lib.cprof_name.restype = ctypes.c_uint32
        lib.cprof_name.argtypes = [ctypes.c_char_p]
        lib.cprof_span_ns.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int64, ctypes.c_int64]
        lib.cprof_counter.argtypes = [ctypes.c_uint32, ctypes.c_double]
        lib.cprof_step.argtypes = [ctypes.c_int64]
        lib.cprof_step_end.argtypes = []
        lib.cprof_mark.argtypes = [ctypes.c_uint32]
        lib.cprof_metadata.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.cprof_thread_name.argtypes = [ctypes.c_char_p]
        lib.cprof_rt_py_sample.argtypes = [ctypes.c_int64, ctypes.c_uint32, ctypes.c_int64]
        lib.cprof_flush.argtypes = []
        if lib.cprof_enabled():
            return lib
    return None


_lib = _load()
_names = {}
_now = time.monotonic_ns


def enabled():
    """True when this process is being traced."""
    return _lib is not None


def _name(s):
    i = _names.get(s)
    if i is None:
        i = _lib.cprof_name(s.encode("utf-8", "replace")) if _lib is not None else 0
        _names[s] = i
    return i


class span:
    """A span named `name` (category `category`, default "user") as a context manager or a
    decorator."""

    __slots__ = ("_name", "_category", "_t0")

    def __init__(self, name, category=None):
        self._name = name
        self._category = category
        self._t0 = 0

    def __enter__(self):
        self._t0 = _now()
        return self

    def __exit__(self, *exc):
        if _lib is not None:
            _lib.cprof_span_ns(_name(self._name), _name(self._category) if self._category else 0, self._t0, _now())
        return False

    def __call__(self, fn):
        name, category = self._name, self._category

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with span(name, category):
                return fn(*args, **kwargs)

        return wrapper


def span_ns(name, start_ns, end_ns, category=None):
    """A span whose times the caller measured with time.monotonic_ns()."""
    if _lib is not None:
        _lib.cprof_span_ns(_name(name), _name(category) if category else 0, start_ns, end_ns)


class step:
    """Step `number` starts now on this thread; the previous step of this thread ends. As a
    context manager (`with cprof.step(i): ...`) the step also ends with the block. A last step
    that neither a block nor step_end() ends, ends with the last span or operator of the thread
    in it: untraced work after that (a sleep, I/O) is left out."""

    __slots__ = ()

    def __init__(self, number):
        if _lib is not None:
            _lib.cprof_step(int(number))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        step_end()
        return False


def step_end():
    """The current step of this thread ends now; call it after a loop's last step."""
    if _lib is not None:
        _lib.cprof_step_end()


def counter(name, value):
    """A value of the counter `name` from now on."""
    if _lib is not None:
        _lib.cprof_counter(_name(name), float(value))


def mark(name):
    """An instant event."""
    if _lib is not None:
        _lib.cprof_mark(_name(name))


def metadata(key, value):
    """A key/value pair in the trace's metadata."""
    if _lib is not None:
        _lib.cprof_metadata(str(key).encode("utf-8", "replace"), str(value).encode("utf-8", "replace"))


def thread_name(name):
    """Names the calling thread in the trace."""
    if _lib is not None:
        _lib.cprof_thread_name(str(name).encode("utf-8", "replace"))


def flush():
    """Writes buffered records now (also done every 50 ms and at exit)."""
    if _lib is not None:
        _lib.cprof_flush()
