"""Workloads for bench/run_trace_overhead_bench.sh: PyTorch CPU work with many small operators
or with a few large ones, timed inside the script (import and start-up excluded), optionally
under torch.profiler (what users run today). Prints one JSON line: {"loop_s": ...}.

    /usr/bin/python3 bench/trace_overhead_workload.py --workload small --profiler torch
"""
import argparse
import json
import resource
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
    # Large matrix products: compute dominates, a few ops per iteration. The outputs are written
    # in place: two fresh 4 MiB tensors per iteration would make glibc grow the heap or mmap
    # anew, taking 1536-2048 page faults per iteration (5-8% of the loop on this VM), and how
    # many depends on the heap's layout, which anything loaded into the process shifts
    # (measured: 12289 faults in 8 iterations with no profiler, 15367 under torch.profiler,
    # 16391 under trace). That is luck, not profiler cost.
    a = torch.randn(1024, 1024)
    b = torch.randn(1024, 1024)
    c = torch.empty(1024, 1024)
    for _ in range(iterations):
        torch.relu_(torch.mm(a, b, out=c))
    return float(c[0, 0])


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


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
            t0, c0, f0 = time.perf_counter(), time.thread_time(), minor_faults()
            fn(n)
            loop, cpu, faults = time.perf_counter() - t0, time.thread_time() - c0, minor_faults() - f0
        t1 = time.perf_counter()
        prof.key_averages()  # what a user looks at; its cost is reported apart
        post = time.perf_counter() - t1
    else:
        t0, c0, f0 = time.perf_counter(), time.thread_time(), minor_faults()
        fn(n)
        loop, cpu, faults = time.perf_counter() - t0, time.thread_time() - c0, minor_faults() - f0
        post = 0.0
    print(json.dumps({"workload": args.workload, "profiler": args.profiler, "loop_s": loop, "loop_cpu_s": cpu, "loop_faults": faults,
                      "post_s": post}))


if __name__ == "__main__":
    main()
