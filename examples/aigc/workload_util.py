"""What the Python AIGC workloads (gpt.py, unet.py) share: step and span markers, and the
measurements of their summary line.

    from workload_util import peak_rss_mb, percentile, span, step_marker
    with step_marker(i), span("denoise"): ...

Markers use the cann-profiler Python SDK (`cprof`, on PYTHONPATH under `trace`), else
torch.profiler's record_function for steps and nothing for spans.
"""
import contextlib
import resource

import torch

try:
    import cprof
except ImportError:
    cprof = None


def step_marker(i):
    """Step i as a span named ProfilerStep#i: the SDK's (read like cprof.step(i), but it ends
    exactly at the end of the step), else torch.profiler's record_function."""
    if cprof is not None:
        return cprof.span("ProfilerStep#%d" % i)
    return torch.profiler.record_function("ProfilerStep#%d" % i)


def span(name):
    return cprof.span(name) if cprof is not None else contextlib.nullcontext()


def percentile(v, p):
    """The p-th percentile by linear interpolation (numpy's default)."""
    v = sorted(v)
    idx = p / 100.0 * (len(v) - 1)
    lo = int(idx)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (idx - lo)


def peak_rss_mb():
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
