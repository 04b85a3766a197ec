"""Planted root cause: thread_oversubscription — more busy threads than cores.

The script asks for 8 intra-op threads ("one per core on the big server") on a machine with
fewer cores, and starts background threads that never sleep: three keep exponential-moving-average
copies of large buffers up to date with torch ops (each op they run starts its own 8-thread
OpenMP team) and one polls a metrics dict in pure Python. The OpenMP workers, the background
threads and the training thread fight over the cores (and the GIL).

    /usr/bin/python3 examples/diagnose/thread_oversubscription.py --steps 15
"""
import argparse
import json
import threading
import time

import torch
import torch.nn as nn
from torch.profiler import record_function

stop = threading.Event()


def ema_updater(shadow, source):
    # "Keep an EMA of the activations statistics fresh": runs flat out, never sleeps.
    while not stop.is_set():
        torch.lerp(shadow, source, 0.01, out=shadow)


def metrics_poller(counter):
    while not stop.is_set():
        counter["polls"] = counter.get("polls", 0) + sum(i * i for i in range(200))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(8)
    counter = {}
    buffers = [(torch.zeros(1 << 20), torch.randn(1 << 20)) for _ in range(3)]
    threads = [threading.Thread(target=ema_updater, args=b, name="ema-%d" % i, daemon=True) for i, b in enumerate(buffers)]
    threads.append(threading.Thread(target=metrics_poller, args=(counter,), name="metrics-poller", daemon=True))
    for t in threads:
        t.start()
    model = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x, y = torch.randn(8, 16, 32, 32), torch.randint(0, 10, (8,))

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    stop.set()
    for t in threads:
        t.join()
    print(json.dumps({"workload": "thread_oversubscription", "steps": args.steps, "loss": round(loss.item(), 4),
                      "threads": torch.get_num_threads(), "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
