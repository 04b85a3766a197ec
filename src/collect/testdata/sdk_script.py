"""The SDK from Python: spans (context manager and decorator), steps, counters."""
import threading
import time

import cprof


def ended_steps():  # steps that end where the program says, untraced work included
    with cprof.step(10):
        time.sleep(0.03)
    cprof.step(11)
    time.sleep(0.03)
    cprof.step_end()
    time.sleep(0.05)  # in no step


t = threading.Thread(target=ended_steps)
t.start()
t.join()


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
