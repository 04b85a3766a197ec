#!/usr/bin/python3
"""Runs `cann-profiler validate` over many pairs of real runs and reports its error rates.

Called by bench/run_validate_bench.sh after it generated runs of three configurations:
a/ (baseline), cl/ (channels_last) and slow/ (oneDNN off). Measures:
  FPR, one run per side:      every pair (a_i, a_j), i < j                 -> share not "unchanged"
  FPR, k runs per side:       disjoint random splits of a/ into k vs k     -> share not "unchanged"
  detection, one run a side:  (a_i, x_i) for x in cl, slow                 -> share called changed
  detection, k runs a side:   (a[k random], x[k random])                   -> share called changed
each with the default test (Mann-Whitney) and with the t-test, alpha 0.05, --min_effect 2%,
metrics step_time,p50_latency,p99_latency,throughput (Holm over the four).
"""
import argparse
import glob
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile


def validate(binary, before, after, test):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    try:
        subprocess.run([binary, "validate", "--before", before, "--after", after, "--statistical_test", test,
                        "--resamples", "1000", "--output", path], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(path) as f:
            doc = json.load(f)
    finally:
        os.unlink(path)
    step = next(m for m in doc["metrics"] if m["name"] == "step_time")
    return doc["verdict"], step["change_pct"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--k", type=int, default=5, help="runs per side in the multi-run design")
    ap.add_argument("--splits", type=int, default=30, help="random k-vs-k splits")
    args = ap.parse_args()
    rng = random.Random(7)
    runs = {c: sorted(glob.glob(os.path.join(args.dir, c, "run_*.json")))[: args.runs] for c in ("a", "cl", "slow")}
    results = {}
    for test in ("mann-whitney", "t-test"):
        r = {}
        # A/A, one run per side.
        verdicts = [validate(args.bin, x, y, test)[0] for x, y in itertools.combinations(runs["a"], 2)]
        r["aa_single"] = {"pairs": len(verdicts), "changed": sum(v != "unchanged" for v in verdicts)}
        # A/A, k runs per side: disjoint random halves.
        changed = 0
        for _ in range(args.splits):
            pick = rng.sample(runs["a"], 2 * args.k)
            v, _ = validate(args.bin, ",".join(pick[: args.k]), ",".join(pick[args.k:]), test)
            changed += v != "unchanged"
        r["aa_multi"] = {"pairs": args.splits, "changed": changed, "k": args.k}
        for cfg in ("cl", "slow"):
            single = [validate(args.bin, a, b, test) for a, b in zip(runs["a"], runs[cfg])]
            multi = []
            for _ in range(max(5, args.splits // 3)):
                a = rng.sample(runs["a"], args.k)
                b = rng.sample(runs[cfg], args.k)
                multi.append(validate(args.bin, ",".join(a), ",".join(b), test))
            r[f"{cfg}_single"] = {"pairs": len(single), "changed": sum(v != "unchanged" for v, _ in single),
                                  "verdicts": [v for v, _ in single],
                                  "step_time_change_pct": [round(c, 2) for _, c in single]}
            r[f"{cfg}_multi"] = {"pairs": len(multi), "changed": sum(v != "unchanged" for v, _ in multi),
                                 "verdicts": [v for v, _ in multi],
                                 "step_time_change_pct": [round(c, 2) for _, c in multi]}
        results[test] = r
    with open(os.path.join(args.dir, "validate_bench.json"), "w") as f:
        json.dump(results, f, indent=1)
    print(f"{'test':<14} {'design':<26} {'comparisons':>11} {'called changed':>15} {'rate':>7}")
    for test, r in results.items():
        for key, label in [("aa_single", "A/A, 1 run per side"), ("aa_multi", f"A/A, {args.k} runs per side"),
                           ("cl_single", "channels_last, 1 run"), ("cl_multi", f"channels_last, {args.k} runs"),
                           ("slow_single", "oneDNN off, 1 run"), ("slow_multi", f"oneDNN off, {args.k} runs")]:
            x = r[key]
            print(f"{test:<14} {label:<26} {x['pairs']:>11} {x['changed']:>15} {x['changed'] / x['pairs']:>7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
