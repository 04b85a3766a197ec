"""Planted root cause: fusion_candidate — GELU and LayerNorm written out from small ops.

A transformer MLP block copied from a paper's equations: the tanh-approximated GELU and the
layer normalization are built from pow/mul/add/tanh/mean/sub/div elementwise operators, each
reading and writing the whole activation, where nn.functional.gelu and nn.functional.layer_norm
do the same in one fused operator each.

    /usr/bin/python3 examples/diagnose/fusion_candidate.py --steps 20
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3))))


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


class MlpBlock(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, hidden), nn.Linear(hidden, d)
        self.ln_w, self.ln_b = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return x + self.fc2(gelu(self.fc1(layer_norm(x, self.ln_w, self.ln_b))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(*[MlpBlock(32, 128) for _ in range(3)])
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x = torch.randn(16, 64, 32)

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "fusion_candidate", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
