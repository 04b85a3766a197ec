"""Planted root cause: tail_latency — every 10th step runs an extra expensive operation.

The training loop "monitors the spectral norm" of the weight matrix every 10 steps with a full
SVD, inside the step. Most steps are fast; every tenth is several times slower, and the slow
steps differ from the fast ones by exactly that operator.

    /usr/bin/python3 examples/diagnose/tail_latency.py --steps 30
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--monitor_every", type=int, default=10)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
    probe = torch.randn(384, 384)

    t0 = time.perf_counter()
    step_ms = []
    norms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            if step % args.monitor_every == args.monitor_every - 1:
                w = model[0].weight.detach()
                norms.append(torch.linalg.svdvals(probe + w.norm())[0].item())
        step_ms.append((time.perf_counter() - s0) * 1e3)
    step_ms.sort()
    print(json.dumps({"workload": "tail_latency", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_p50": round(step_ms[len(step_ms) // 2], 2), "step_ms_max": round(step_ms[-1], 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
