"""Planted root cause: dataloader — a slow synchronous input pipeline.

The Dataset decodes each sample in Python (parsing a text record into floats and applying a
per-pixel "augmentation" loop), and the DataLoader runs it in the training process
(num_workers=0), so every step first waits for 32 samples to be built one by one.

    /usr/bin/python3 examples/diagnose/dataloader.py --steps 20
"""
import argparse
import json
import random
import time

import torch
import torch.nn as nn
from torch.profiler import record_function
from torch.utils.data import DataLoader, Dataset


class TextRecordDataset(Dataset):
    """Samples stored as comma-separated text, parsed and augmented on every access."""

    def __init__(self, n, features):
        rng = random.Random(0)
        self.records = [",".join("%.4f" % rng.gauss(0, 1) for _ in range(features)) for _ in range(n)]
        self.labels = [rng.randrange(10) for _ in range(n)]

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        values = [float(v) for v in self.records[i].split(",")]
        values = [min(3.0, max(-3.0, v * 1.1 + 0.05)) for v in values]  # jitter + clip, per value
        return torch.tensor(values), self.labels[i]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    features = 768
    loader = DataLoader(TextRecordDataset(32 * args.steps, features), batch_size=32, shuffle=True, num_workers=0)
    model = nn.Sequential(nn.Linear(features, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)

    t0 = time.perf_counter()
    step_ms = []
    batches = iter(loader)
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            x, y = next(batches)
            opt.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "dataloader", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
