"""Planted root cause: launch_overhead — thousands of tiny operators per step.

A "physics-informed" regression whose loss is computed per sample and per feature in a Python
loop on 1-element tensors, instead of one vectorized expression. Each step dispatches thousands
of aten ops that each do almost nothing, so the per-op dispatch cost dominates.

    /usr/bin/python3 examples/diagnose/launch_overhead.py --steps 20
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def smoothness_penalty(pred, target):
    # Written the way the maths reads: one term per sample and output, each a tiny op.
    total = torch.zeros(())
    for i in range(pred.shape[0]):
        for j in range(pred.shape[1]):
            d = pred[i, j] - target[i, j]
            total = total + d * d + 0.01 * torch.abs(d)
    return total / pred.numel()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    x, y = torch.randn(48, 16), torch.randn(48, 4)

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            loss = smoothness_penalty(model(x), y)
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "launch_overhead", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
