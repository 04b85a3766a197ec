"""Planted root cause: host_gap — heavy pure-Python work inside each training step.

After every forward/backward the step computes "detailed metrics" in plain Python: per-sample
predictions are pulled out with .tolist() and a confusion matrix, per-class precision and a
formatted log line are built in nested Python loops. No operator runs meanwhile.

    /usr/bin/python3 examples/diagnose/host_gap.py --steps 20
"""
import argparse
import json
import time

import torch
import torch.nn as nn
from torch.profiler import record_function


def detailed_metrics(logits, labels, classes):
    preds = logits.argmax(dim=1).tolist()
    truth = labels.tolist()
    confusion = [[0] * classes for _ in range(classes)]
    for p, t in zip(preds, truth):
        confusion[t][p] += 1
    report = {}
    for _ in range(40):  # "smoothed" over bootstrap resamples
        for c in range(classes):
            tp = confusion[c][c]
            fp = sum(confusion[r][c] for r in range(classes)) - tp
            fn = sum(confusion[c]) - tp
            report["class_%d" % c] = {"precision": tp / max(1, tp + fp), "recall": tp / max(1, tp + fn)}
    line = " ".join("%s=%.3f/%.3f" % (k, v["precision"], v["recall"]) for k, v in sorted(report.items()))
    return report, line


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    torch.manual_seed(0)
    classes = 40
    model = nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, classes))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)
    x, y = torch.randn(128, 128), torch.randint(0, classes, (128,))

    t0 = time.perf_counter()
    step_ms = []
    for step in range(args.steps):
        s0 = time.perf_counter()
        with record_function("ProfilerStep#%d" % step):
            opt.zero_grad(set_to_none=True)
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            loss.backward()
            opt.step()
            report, line = detailed_metrics(logits.detach(), y, classes)
        step_ms.append((time.perf_counter() - s0) * 1e3)
    print(json.dumps({"workload": "host_gap", "steps": args.steps, "loss": round(loss.item(), 4),
                      "step_ms_mean": round(sum(step_ms) / len(step_ms), 2),
                      "wall_s": round(time.perf_counter() - t0, 2)}))


if __name__ == "__main__":
    main()
