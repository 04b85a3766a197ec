"""Planted root cause: thread_oversubscription — more busy threads than cores.

The script asks for 8 intra-op threads ("one per core on the big server") on a machine with
fewer cores, and starts three background Python threads (a metrics poller, a log shipper and a
heartbeat) that spin without sleeping. The OpenMP workers and the Python threads fight over the
cores and over the GIL.

    /usr/bin/python3 examples/diagnose/thread_oversubscription.py --steps 20
"""
import argparse
import json
import threading
import time

import torch
import torch.nn as nn
from torch.profiler import record_function

stop = threading.Event()


def busy_poller(name, counter):
    # Polls "is there something to do" in a tight loop: never sleeps.
    while not stop.is_set():
        counter[name] = counter.get(name, 0) + sum(i * i for i in range(200))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(8)
    counter = {}
    threads = [threading.Thread(target=busy_poller, args=(n, counter), name=n, daemon=True)
               for n in ("metrics-poller", "log-shipper", "heartbeat")]
    for t in threads:
        t.start()
    model = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x, y = torch.randn(8, 16, 24, 24), torch.randint(0, 10, (8,))

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
    print(json.dumps({"workload": "thread_oversubscription", "steps": args.steps, "loss": round(loss.item(), 4),
                      "threads": torch.get_num_threads(), "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
