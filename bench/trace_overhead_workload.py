"""Workloads for bench/run_trace_overhead_bench.sh: PyTorch CPU work with many small operators
or with a few large ones, timed inside the script (import and start-up excluded), optionally
under torch.profiler (what users run today). Prints one JSON line: {"loop_s": ...}.

    /usr/bin/python3 bench/trace_overhead_workload.py --workload small --profiler torch
"""
import argparse
import json
import time

import torch


def small_ops(iterations):
    # ~6 aten ops per iteration on tiny tensors: dispatch and observer overhead dominate.
    x = torch.randn(8, 8)
    w = torch.randn(8, 8)
    acc = torch.zeros(8, 8)
    for _ in range(iterations):
        y = torch.relu(x @ w + 1.0)
        acc = acc + y * 0.5
    return float(acc.sum())


def large_ops(iterations):
    # Large matrix products: compute dominates, a few ops per iteration.
    a = torch.randn(1024, 1024)
    b = torch.randn(1024, 1024)
    c = None
    for _ in range(iterations):
        c = torch.relu(a @ b)
    return float(c[0, 0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workload", choices=["small", "large"], required=True)
    p.add_argument("--profiler", choices=["none", "torch"], default="none")
    p.add_argument("--iterations", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(0)
    fn = small_ops if args.workload == "small" else large_ops
    n = args.iterations or (20000 if args.workload == "small" else 40)
    fn(max(1, n // 20))  # warm-up (allocator, thread pools)
    if args.profiler == "torch":
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU]) as prof:
            t0, c0 = time.perf_counter(), time.thread_time()
            fn(n)
            loop, cpu = time.perf_counter() - t0, time.thread_time() - c0
        t1 = time.perf_counter()
        prof.key_averages()  # what a user looks at; its cost is reported apart
        post = time.perf_counter() - t1
    else:
        t0, c0 = time.perf_counter(), time.thread_time()
        fn(n)
        loop, cpu = time.perf_counter() - t0, time.thread_time() - c0
        post = 0.0
    print(json.dumps({"workload": args.workload, "profiler": args.profiler, "loop_s": loop, "loop_cpu_s": cpu, "post_s": post}))


if __name__ == "__main__":
    main()
