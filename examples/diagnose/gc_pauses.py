"""Planted root cause: gc — Python garbage-collection pauses.

The training loop keeps a large in-memory "experiment tracker": a graph of Python record
objects that point at each other (parent <-> child reference cycles), and every step adds
more and drops old ones. Because the dropped records form cycles, the author calls
gc.collect() every step "to keep memory flat"; each full collection walks the whole graph.

    /usr/bin/python3 examples/diagnose/gc_pauses.py --steps 20
"""
import argparse
import gc
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


class Record:
    __slots__ = ("parent", "children", "tags")

    def __init__(self, parent):
        self.parent = parent
        self.children = []
        self.tags = {}
        if parent is not None:
            parent.children.append(self)


def track_step(tracker, step, fanout):
    root = Record(None)
    for i in range(fanout):
        Record(root).tags["i"] = i
    tracker.append(root)
    if len(tracker) > 60:
        tracker.pop(0)  # dropped records are cycles: only the collector frees them


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    # The long-lived part of the tracker: history loaded at start-up.
    history = [Record(None) for _ in range(150000)]
    for i, r in enumerate(history[1:], 1):
        r.parent = history[i // 2]
    tracker = []
    model = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x, y = torch.randn(64, 128), torch.randint(0, 10, (64,))

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            track_step(tracker, step, fanout=2000)
            gc.collect()  # "keep memory flat"
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "gc", "steps": args.steps, "loss": round(loss.item(), 4),
                      "objects": len(history), "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
