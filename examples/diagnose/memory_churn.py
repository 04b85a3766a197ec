"""Planted root cause: memory_churn — a tensor grown with torch.cat every iteration and scratch
buffers allocated with torch.zeros in the inner loop.

A streaming "feature extractor" keeps all embeddings seen so far by concatenating each chunk's
output onto a history tensor (so every cat copies everything again), and allocates a fresh
zero-filled scratch buffer for every chunk instead of reusing one.

    /usr/bin/python3 examples/diagnose/memory_churn.py --steps 20
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    encoder = nn.Linear(64, 128)
    chunks = [torch.randn(64, 64) for _ in range(6)]
    history = torch.empty(0, 128)

    t0 = time.perf_counter()
    step_ms = []
    with torch.no_grad():
        for step in range(args.steps):
            s0 = time.perf_counter()
            with record_function("ProfilerStep#%d" % step):
                for chunk in chunks:
                    scratch = torch.zeros(256, 512)      # fresh zero-filled buffer each chunk
                    scratch[:64, :128] = encoder(chunk)
                    history = torch.cat([history, scratch[:64, :128]])  # grows: copies everything
                score = history[-64:].mean()
            step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "memory_churn", "steps": args.steps, "rows": history.shape[0],
                      "score": round(score.item(), 4), "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
