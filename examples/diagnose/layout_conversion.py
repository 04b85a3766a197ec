"""Planted root cause: layout_conversion — activations flip between channels_last and
contiguous (NCHW) between layers.

Someone read that channels_last is faster for convolutions and converted the input of each
conv block, but the custom normalization they wrote expects NCHW, so every block converts the
activation twice. The convolutions themselves are cheap; the copies are not.

    /usr/bin/python3 examples/diagnose/layout_conversion.py --steps 20
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 1)
        self.scale = nn.Parameter(torch.ones(1, c, 1, 1))

    def forward(self, x):
        x = x.contiguous(memory_format=torch.channels_last)  # "faster convs"
        x = self.conv(x)
        x = x.contiguous()  # the norm below was written for NCHW
        return torch.relu(x * self.scale)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(*[Block(16) for _ in range(6)])
    x = torch.randn(8, 16, 48, 48)

    t0 = time.perf_counter()
    step_ms = []
    with torch.no_grad():
        for step in range(args.steps):
            s0 = time.perf_counter()
            with record_function("ProfilerStep#%d" % step):
                out = model(x)
            step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "layout_conversion", "steps": args.steps, "mean": round(out.mean().item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
