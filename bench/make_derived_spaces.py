#!/usr/bin/env python3
"""Held-out spaces for the tuner benchmark, cut from the replayed Kernel Tuner caches.

The tuner's settings were chosen on the three spaces in ../shared/fixtures/tuning; these sub-spaces
check that its sample efficiency is not an artefact of them. Each keeps the configurations of one
cache that satisfy a restriction (so its optimum, its share of absent configurations and its random
baseline differ), and narrows every parameter's list to the values that remain:

  gemm-noshared   gemm with SA = SB = 0 (no local-memory caching): the optimum moves inside the
                  ranges (MWG = 64 of 16..128), and random search is strong (0.86 at 25 evaluations)
  gemm-smalltile  gemm with MWG, NWG <= 64
  gemm-narrowvec  gemm with VWM, VWN <= 2
  conv-nopad      convolution without padding
  pnpoly-small    pnpoly with block_size_x <= 512

and spaces where some configurations fail (their `time` becomes RuntimeFailedConfig or
CompilationFailedConfig, which costs an evaluation in a replay), to check how a sampler learns from
failures (gemm has none; convolution and pnpoly have theirs):

  gemm-failregs     gemm where the work per thread MWG*NWG/(MDIMC*NDIMC) exceeds the optimum's 128,
                    or VWM*VWN >= 32 (register pressure): 1,048 failures, next to the optimum
  gemm-failthreads  gemm with MDIMC*NDIMC >= 512 threads per block: 1,680, away from the optimum
  gemm-failrandom   gemm with a random tenth failing (a hash of the configuration): 1,816

and a space where almost nothing in the parameters' product exists, as where hidden constraints
are tight (a proposal of an absent configuration costs nothing, but a sampler must get past them):

  gemm-pad          gemm with a 16th parameter PAD = 0..15 of which only 0 exists (1.4% of the
                    product exists); the same optimum and random baseline as gemm

  bench/make_derived_spaces.py OUT_DIR        then: tune_replay_bench --dir OUT_DIR

With --random N (and --seed S), instead N sub-spaces drawn at random, as a user narrows ranges:
each picks one of the three caches, one or two of its parameters with three or more values, and
keeps the lower or the upper half of each one's values (at least 300 configurations with a time
must remain). Named <kernel>-r<i>, they estimate how often the default sampler meets its target on
a space no setting was chosen on.
"""
import argparse
import gzip
import hashlib
import json
import os
import random
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "fixtures", "tuning")

DERIVED = [
    ("gemm-noshared", "gemm_RTX_3090.json.gz", lambda p: p["SA"] == 0 and p["SB"] == 0),
    ("gemm-smalltile", "gemm_RTX_3090.json.gz", lambda p: p["MWG"] <= 64 and p["NWG"] <= 64),
    ("gemm-narrowvec", "gemm_RTX_3090.json.gz", lambda p: p["VWM"] <= 2 and p["VWN"] <= 2),
    ("conv-nopad", "convolution_RTX_3090.json.gz", lambda p: p["use_padding"] == 0),
    ("pnpoly-small", "pnpoly_RTX_3090.json.gz", lambda p: p["block_size_x"] <= 512),
]


FAILING = [
    ("gemm-failregs", "gemm_RTX_3090.json.gz", "RuntimeFailedConfig",
     lambda k, p: p["MWG"] * p["NWG"] / (p["MDIMC"] * p["NDIMC"]) > 128 or p["VWM"] * p["VWN"] >= 32),
    ("gemm-failthreads", "gemm_RTX_3090.json.gz", "CompilationFailedConfig",
     lambda k, p: p["MDIMC"] * p["NDIMC"] >= 512),
    ("gemm-failrandom", "gemm_RTX_3090.json.gz", "CompilationFailedConfig",
     lambda k, p: int(hashlib.md5(k.encode()).hexdigest(), 16) % 10 == 0),
]


def with_failures(src, failure, fails):
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    keys = doc["tune_params_keys"]
    for k, v in doc["cache"].items():
        if fails(k, {p: v[p] for p in keys}):
            v["time"] = failure
    return doc


def with_dead_parameter(src):
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    doc["tune_params_keys"].append("PAD")
    doc["tune_params"]["PAD"] = list(range(16))
    doc["cache"] = {k + ",0": dict(v, PAD=0) for k, v in doc["cache"].items()}
    return doc


def derive(src, keep):
    with gzip.open(src, "rt") as f:
        doc = json.load(f)
    keys = doc["tune_params_keys"]
    cache = {k: v for k, v in doc["cache"].items() if keep({p: v[p] for p in keys})}
    for p in keys:
        present = {v[p] for v in cache.values()}
        doc["tune_params"][p] = [x for x in doc["tune_params"][p] if x in present]
    doc["cache"] = cache
    return doc


def random_cuts(fixtures, n, seed):
    """n (name, kernel, keep, description) drawn with `seed`: half-ranges of one or two parameters."""
    rng = random.Random(seed)
    docs = {}
    for kernel in ("convolution", "gemm", "pnpoly"):
        with gzip.open(os.path.join(fixtures, kernel + "_RTX_3090.json.gz"), "rt") as f:
            docs[kernel] = json.load(f)
    cuts = []
    for _ in range(1000 * n):  # distinct cuts; a bound for an n larger than there are
        if len(cuts) == n:
            break
        kernel = rng.choice(sorted(docs))
        doc = docs[kernel]
        wide = [p for p in doc["tune_params_keys"] if len(doc["tune_params"][p]) >= 3]
        chosen = rng.sample(wide, rng.choice((1, 2)))
        allowed = {}
        for p in chosen:
            values = doc["tune_params"][p]
            half = (len(values) + 1) // 2
            allowed[p] = set(values[:half] if rng.random() < 0.5 else values[-half:])
        keep = lambda v, allowed=allowed: all(v[p] in a for p, a in allowed.items())
        desc = ", ".join(f"{p} in {sorted(a)}" for p, a in sorted(allowed.items()))
        if any(c[1] == kernel and c[3] == desc for c in cuts):
            continue
        timed = sum(1 for v in doc["cache"].values() if keep(v) and isinstance(v.get("time"), (int, float)))
        if timed >= 300:
            cuts.append((f"{kernel}-r{len(cuts)}", kernel, keep, desc))
    return cuts


def main():
    parser = argparse.ArgumentParser(description="Held-out sub-spaces of the Kernel Tuner caches.")
    parser.add_argument("out", metavar="OUT_DIR")
    parser.add_argument("--random", type=int, default=0, metavar="N", help="N sub-spaces drawn at random instead")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    args = parser.parse_args()
    out, n_random, seed = args.out, args.random, args.seed
    os.makedirs(out, exist_ok=True)
    fixtures = os.environ.get("CPROF_FIXTURES_DIR")
    fixtures = os.path.join(fixtures, "tuning") if fixtures else FIXTURES
    if n_random:
        cuts = random_cuts(fixtures, n_random, seed)
        for name, _, _, desc in cuts:
            print(f"{name}: {desc}", file=sys.stderr)
        jobs = [(name, lambda src=kernel + "_RTX_3090.json.gz", keep=keep: derive(os.path.join(fixtures, src), keep))
                for name, kernel, keep, _ in cuts]
        return write(out, jobs)
    jobs = [(name, lambda src=src, keep=keep: derive(os.path.join(fixtures, src), keep)) for name, src, keep in DERIVED]
    jobs += [(name, lambda src=src, failure=failure, fails=fails: with_failures(os.path.join(fixtures, src), failure, fails))
             for name, src, failure, fails in FAILING]
    jobs.append(("gemm-pad", lambda: with_dead_parameter(os.path.join(fixtures, "gemm_RTX_3090.json.gz"))))
    write(out, jobs)


def write(out, jobs):
    for name, make in jobs:
        path = os.path.join(out, name + "_RTX_3090.json.gz")
        if os.path.exists(path):
            continue
        doc = make()
        tmp = path + ".tmp"
        with gzip.open(tmp, "wt") as f:
            json.dump(doc, f)
        os.replace(tmp, path)
        print(f"{name}: {len(doc['cache'])} configurations", file=sys.stderr)


if __name__ == "__main__":
    main()
