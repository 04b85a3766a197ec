"""Planted root cause: affinity_api — a hand-written per-parameter optimizer loop.

The author wrote SGD with momentum and weight decay themselves, looping over every parameter
tensor of a deep narrow network, instead of torch.optim.SGD(..., foreach=True) which updates
all parameters with a few multi-tensor operators.

    /usr/bin/python3 examples/diagnose/affinity_api.py --steps 20
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


class ManualSGD:
    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, nesterov=True):
        self.params = list(params)
        self.lr, self.momentum, self.weight_decay, self.nesterov = lr, momentum, weight_decay, nesterov
        self.buffers = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self):
        for p, buf in zip(self.params, self.buffers):
            g = p.grad.add(p, alpha=self.weight_decay)
            buf.mul_(self.momentum).add_(g)
            if self.nesterov:
                g = g.add(buf, alpha=self.momentum)
            else:
                g = buf
            p.add_(g, alpha=-self.lr)

    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    torch.manual_seed(0)
    layers = []
    for _ in range(24):
        layers += [nn.Linear(32, 32), nn.LayerNorm(32), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(32, 1))
    opt = ManualSGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 32), torch.randn(32, 1)

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "affinity_api", "steps": args.steps, "params": len(opt.params),
                      "loss": round(loss.item(), 4), "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
