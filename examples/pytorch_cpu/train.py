"""A small real PyTorch CPU training workload that writes a profiler trace.

It trains a tiny convolutional classifier on random images for a few steps under
torch.profiler with a schedule, so the trace holds ProfilerStep#N spans, operators with
input shapes, and allocator events. Runs with Debian's python3-torch (1.13) on any CPU.

    /usr/bin/python3 examples/pytorch_cpu/train.py --output out/demo_trace.json --steps 8
"""
import argparse
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule


class SmallNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 16, 128), nn.ReLU(), nn.Linear(128, classes))

    def forward(self, x):
        return self.head(self.features(x))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", required=True, help="trace file to write (.json)")
    parser.add_argument("--steps", type=int, default=8, help="profiled steps")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--image", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="intra-op threads; 0 = torch default")
    args = parser.parse_args()

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = SmallNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def batch():
        # Simulates an input pipeline: host-side work the device would wait for.
        with record_function("data_loader"):
            x = torch.randn(args.batch, 3, args.image, args.image)
            y = torch.randint(0, 10, (args.batch,))
        return x, y

    sched = schedule(wait=1, warmup=1, active=args.steps, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], schedule=sched, record_shapes=True,
                 profile_memory=True, with_stack=False) as prof:
        for _ in range(args.steps + 2):
            x, y = batch()
            with record_function("forward"):
                out = model(x)
                loss = loss_fn(out, y)
            with record_function("backward"):
                opt.zero_grad(set_to_none=True)
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            prof.step()

    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = args.output + ".tmp"
    prof.export_chrome_trace(tmp)
    os.replace(tmp, args.output)
    print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes), final loss {loss.item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
