"""Runs a workload's configurations interleaved, several times each, and prints the summary
line's metric per configuration (mean, sd, median, min) and each configuration's speed-up over
the first by median — how the numbers in README.md here were measured.

    python3 examples/aigc/compare_configs.py --repeats 5 --metric latency_ms -- build/examples/unet \
        :: "" "--memory_format channels_last --fused_conv 1" "--memory_format channels_last --threads 2"

Interleaving (A B C A B C ...) spreads slow phases of a shared machine over every configuration
instead of over one. After `::`, each argument is one configuration: a string of flags appended to
the command.
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: compare_configs.py [--repeats N] [--metric M] -- CMD... :: 'FLAGS' 'FLAGS' ...")
    i = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--metric", default="latency_ms")
    a = p.parse_args(argv[:i])
    rest = argv[i + 1:]
    j = rest.index("::")
    cmd, configs = rest[:j], [shlex.split(c) for c in rest[j + 1:]]
    values = [[] for _ in configs]
    walls = [[] for _ in configs]
    for r in range(a.repeats):
        for c, flags in enumerate(configs):
            t0 = time.perf_counter()
            out = subprocess.run(cmd + flags, check=True, capture_output=True, text=True).stdout
            walls[c].append(time.perf_counter() - t0)
            values[c].append(json.loads(out.strip().splitlines()[-1])[a.metric])
    base = statistics.median(values[0])
    for flags, v, w in zip(configs, values, walls):
        sd = statistics.stdev(v) if len(v) > 1 else 0.0
        med = statistics.median(v)
        print("%-60s %s mean %8.2f sd %7.2f median %8.2f min %8.2f  x%.2f  (run %.1f s)" % (
            " ".join(flags) or "(default)", a.metric, statistics.mean(v), sd, med, min(v), base / med,
            statistics.mean(w)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
