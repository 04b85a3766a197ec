"""A PyTorch CPU inference workload with three knobs, for `cann-profiler tune`.

Runs a small convolutional network on random images and prints one JSON line with the time per
image, which is what a tuner minimizes. The knobs change real behaviour, not the work:
`--threads` (intra-op parallelism), `--batch` (images per forward pass: larger batches amortize
per-call overhead) and `--memory_format` (contiguous NCHW or channels_last NHWC, which picks
different oneDNN convolution kernels on CPU). Same seed, same data, every run.

    /usr/bin/python3 examples/tune/infer_bench.py --threads 1 --batch 1 --memory_format contiguous
    {"ms_per_image": 4.21, "batch_ms": 4.21, "threads": 1, "batch": 1}

Tune it (examples/tune/space.yaml):

    cann-profiler tune --space examples/tune/space.yaml --objective ms_per_image:min --budget 12 \\
        -- /usr/bin/python3 examples/tune/infer_bench.py --threads {threads} --batch {batch} \\
           --memory_format {memory_format}
"""
import argparse
import json
import time

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=1)
    # contiguous_format: the name torch and `tune --from_diagnosis` use for the same layout.
    p.add_argument("--memory_format", "--memory-format", choices=["contiguous", "contiguous_format", "channels_last"],
                   default="contiguous")
    p.add_argument("--images", type=int, default=64, help="images measured per run")
    p.add_argument("--image_size", "--image-size", type=int, default=32)
    a = p.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(a.threads)
    fmt = torch.channels_last if a.memory_format == "channels_last" else torch.contiguous_format
    model = Net().eval().to(memory_format=fmt)
    x = torch.randn(a.batch, 3, a.image_size, a.image_size).to(memory_format=fmt)
    batches = max(2, a.images // a.batch)
    with torch.no_grad():
        for _ in range(2):  # warm-up: allocator, oneDNN primitive caches
            model(x)
        start = time.perf_counter()
        for _ in range(batches):
            model(x)
        elapsed = time.perf_counter() - start
    batch_ms = 1000.0 * elapsed / batches
    print(json.dumps({"ms_per_image": round(batch_ms / a.batch, 5), "batch_ms": round(batch_ms, 4),
                      "threads": a.threads, "batch": a.batch}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
