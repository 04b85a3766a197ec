"""The SDK from Python: spans (context manager and decorator), steps, counters."""
import time

import cprof


@cprof.span("py_decorated")
def work():
    time.sleep(0.002)


for step in range(4):
    cprof.step(step)
    with cprof.span("py_outer"):
        work()
        cprof.counter("py_items", step * 2)
cprof.metadata("sdk_language", "python")

import gc

gc.collect()  # the shim records the pause: a "gc.collect gen2" span
time.sleep(0.2)  # after the last step's work: not part of step 3
