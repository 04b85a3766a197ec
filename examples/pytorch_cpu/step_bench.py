"""A benchmark-style PyTorch CPU training loop with knobs, for before/after validation.

Trains the SmallNet of train.py on random images, profiled with torch.profiler, and prints one
line per profiled step (`step N ms`). Three knobs change real behaviour without changing the work:
`--threads` (intra-op parallelism), `--channels_last` (memory format of the activations and
weights; on CPU it picks different convolution kernels) and `--mkldnn off` (no oneDNN: the
convolutions fall back to PyTorch's reference kernels, a large slowdown). Same seed, same data every run, so two
runs of one configuration differ only by machine noise: an A/A pair.

    /usr/bin/python3 examples/pytorch_cpu/step_bench.py --output out/a.json --steps 30 --threads 1
    /usr/bin/python3 examples/pytorch_cpu/step_bench.py --output out/b.json --steps 30 --threads 1 --channels_last
"""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train import SmallNet  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="trace file to write (.json); no profiler when omitted")
    parser.add_argument("--steps", type=int, default=30, help="profiled (measured) steps")
    parser.add_argument("--warmup", type=int, default=3, help="unprofiled steps before measuring")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--image", type=int, default=32)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads")
    parser.add_argument("--channels_last", "--channels-last", action="store_true",
                        help="NHWC activations and weights")
    parser.add_argument("--mkldnn", choices=["on", "off"], default="on",
                        help="oneDNN (MKL-DNN) convolutions; off falls back to PyTorch's slow reference kernels")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.backends.mkldnn.enabled = args.mkldnn == "on"
    torch.manual_seed(0)
    fmt = torch.channels_last if args.channels_last else torch.contiguous_format
    model = SmallNet().to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(1)
    data = [(torch.randn(args.batch, 3, args.image, args.image, generator=gen).contiguous(memory_format=fmt),
             torch.randint(0, 10, (args.batch,), generator=gen)) for _ in range(4)]

    def step(i):
        x, y = data[i % len(data)]
        with record_function("forward"):
            loss = loss_fn(model(x), y)
        with record_function("backward"):
            opt.zero_grad(set_to_none=True)
            loss.backward()
        with record_function("optimizer"):
            opt.step()
        return loss

    times = []
    total = args.warmup + args.steps
    if args.output:
        sched = schedule(wait=0, warmup=args.warmup, active=args.steps, repeat=1)
        with profile(activities=[ProfilerActivity.CPU], schedule=sched, record_shapes=True) as prof:
            for i in range(total):
                t0 = time.perf_counter()
                step(i)
                prof.step()
                times.append(time.perf_counter() - t0)
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        tmp = args.output + ".tmp"
        prof.export_chrome_trace(tmp)
        os.replace(tmp, args.output)
    else:
        for i in range(total):
            t0 = time.perf_counter()
            step(i)
            times.append(time.perf_counter() - t0)
    for i, t in enumerate(times[args.warmup:]):
        print(f"step {i} {t * 1e3:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
