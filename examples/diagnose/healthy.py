"""Healthy baseline: an MLP classifier trained on pre-generated batches with large operators.

No planted root cause: a handful of big matmuls per step, data already in memory, a fused
(foreach) optimizer, no Python work between operators. `diagnose` should find nothing above 0.5
confidence here.

    /usr/bin/python3 examples/diagnose/healthy.py --steps 30
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    torch.manual_seed(0)

    model = nn.Sequential(nn.Linear(256, 384), nn.ReLU(), nn.Linear(384, 384), nn.ReLU(), nn.Linear(384, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=True)
    loss_fn = nn.CrossEntropyLoss()
    batches = [(torch.randn(128, 256), torch.randint(0, 10, (128,))) for _ in range(4)]

    for x, y in batches:  # warm-up: first-touch allocations and kernel selection, not measured
        loss_fn(model(x), y).backward()
    opt.zero_grad(set_to_none=True)

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            x, y = batches[step % len(batches)]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "healthy", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
