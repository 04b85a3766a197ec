#!/usr/bin/python3
"""Optuna's TPE on replayed Kernel Tuner spaces: the reference for bench/tune_replay_bench.

Same semantics as cann-profiler's replay evaluator (src/tune/replay_evaluator.h):
  - the objective of a configuration is the mean of its `times` (some files overwrote `time`), or
    where the file names another `objective` ("GFLOP/s") the record's value of it; one where
    higher is better (the file's `objective_higher_is_better`, else Kernel Tuner's default for the
    name) is minimized as its inverse, the cost tune_replay_bench scores;
  - a configuration absent from the cache violates a hidden constraint: told as FAIL, costs no
    evaluation;
  - a record whose `time` is an error string (or 1e20, NaN or negative, as older Kernel Tuner
    versions wrote) failed: told as FAIL, costs one evaluation;
  - a configuration Optuna proposes again is answered from what was measured and costs nothing
    (Optuna's TPE may repeat itself; ours never does).
Optuna sees only the parameter lists (`tune_params`), as suggest_categorical choices — exactly what
a user of Optuna would write for these spaces. T4 results files (Kernel Tuner's output format) are
read as caches, as cann-profiler reads them (as_cache).

  /usr/bin/python3 bench/optuna_replay.py --seeds 50 --budgets 25,50,100,200 --out optuna.json

Output: {"<space>": {"budgets": [...], "best_at": [[best time after each budget] per seed],
"evaluations": [evaluations reached per seed], "optuna_version": "..."}}.
TPE repeats itself more and more as a study goes on, and every ask scans the whole study, so a
seed stops after --asks-per-evaluation x the largest budget asks (default 10); a budget not
reached then records the best so far, and "evaluations" says how far each seed got.
Standard library + optuna only.
"""
import argparse
import glob
import re
import gzip
import json
import math
import multiprocessing
import os
import statistics
import sys


FAILURES = {"compile": "CompilationFailedConfig", "runtime": "RuntimeFailedConfig", "timeout": "TimeoutConfig"}


def as_cache(doc):
    """T4 results (Kernel Tuner's output file) as a cache, as kernel_tuner_cache.cc reads them: the
    values the results hold are the parameter lists (numbers ascending), a result that broke the
    restrictions is absent, other invalid ones failed."""
    if not isinstance(doc, dict) or "tune_params" in doc or not isinstance(doc.get("results"), list):
        return doc
    results = doc["results"]
    if not results:
        return {}
    keys = list(results[0]["configuration"].keys())
    values = {k: [] for k in keys}
    cache = {}
    named = next((r.get("objectives") for r in results if r.get("invalidity", "correct") != "constraints"), None)
    objective = named[0] if isinstance(named, list) and named and isinstance(named[0], str) and named[0] else "time"
    for res in results:
        config = res["configuration"]
        for k in keys:
            if config[k] not in values[k]:
                values[k].append(config[k])
        invalidity = res.get("invalidity", "correct")
        invalidity = invalidity if isinstance(invalidity, str) else json.dumps(invalidity)
        if invalidity == "constraints":
            continue
        rec = dict(config)
        times = (res.get("times") or {}).get("runtimes") or []
        measured = [m.get("value") for m in res.get("measurements") or []
                    if isinstance(m, dict) and m.get("name") == objective]
        if invalidity != "correct":
            rec["time"] = FAILURES.get(invalidity, "InvalidConfig (%s)" % invalidity)
        elif objective != "time":
            # Kernel Tuner's conversion of a cache marks failed results "correct" too, with the
            # error string as the measurement: measurement() reads a string as a failure.
            rec[objective] = measured[0] if measured else None
        else:
            rec["times"] = times
            rec["time"] = measured[0] if measured else (statistics.fmean(times) if times else None)
        cache.setdefault(",".join(str(config[k]) for k in keys), rec)  # the first, as the C++ reader
    for k in keys:
        if all(isinstance(v, (int, float)) for v in values[k]):
            values[k].sort()
    return {"tune_params_keys": keys, "tune_params": values, "cache": cache, "objective": objective}


def read_doc(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return as_cache(json.load(f))


def is_cache(path):
    try:
        doc = read_doc(path)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("tune_params"), dict) and isinstance(doc.get("cache"), dict)


# Kernel Tuner's directions for the objectives it knows (kernel_tuner/integration.py), as
# kernel_tuner_cache.cc's HigherIsBetter.
HIGHER_IS_BETTER = {"time": False, "energy": False, "GFLOP/s": True, "TFLOP/s": True, "GB/s": True, "TB/s": True,
                    "GFLOPS/W": True, "TFLOPS/W": True, "GFLOP/J": True, "TFLOP/J": True}


def direction(doc):
    """(objective name, higher is better or None where neither the file nor the name says)."""
    first = lambda v: v[0] if isinstance(v, list) and v else v  # a multi-objective cache: its first
    objective = first(doc.get("objective")) or "time"
    higher = first(doc.get("objective_higher_is_better"))
    return objective, higher if isinstance(higher, bool) else HIGHER_IS_BETTER.get(objective)


def measurement(rec, objective):
    """A record's value of the objective, None when it failed."""
    t = rec.get("time")
    if objective != "time":
        if isinstance(t, str) or (isinstance(t, (int, float)) and t >= 1e20):
            return None
        v = rec.get(objective)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None
    times = [x for x in rec.get("times") or [] if isinstance(x, (int, float))]
    if isinstance(t, str) or (isinstance(t, (int, float)) and not 0 <= t < 1e20):
        # failed: costs one evaluation. Older Kernel Tuner versions marked it with a time of
        # 1e20; NaN and negative times are no measurement either.
        return None
    if times:
        return statistics.fmean(times)
    return float(t) if isinstance(t, (int, float)) else None


def load(path):
    """Parameter lists and {configuration: cost or None (failed)}; the cost is the objective, or its
    inverse where higher is better."""
    doc = read_doc(path)
    keys = doc.get("tune_params_keys") or list(doc["tune_params"].keys())
    params = [(k, doc["tune_params"][k]) for k in keys]
    objective, higher = direction(doc)
    table = {}
    for rec in doc["cache"].values():
        v = measurement(rec, objective)
        table[tuple(rec[k] for k in keys)] = None if v is None else (1.0 / v if higher and v > 0 else v)
    return params, table


def unscorable(path):
    """Why tune_replay_bench would skip this cache, or None."""
    doc = read_doc(path)
    objective, higher = direction(doc)
    if higher is None:
        return "its objective '%s' has no known direction (the file has no objective_higher_is_better)" % objective
    values = [v for v in (measurement(r, objective) for r in doc["cache"].values()) if v is not None]
    if not values:
        return "it holds no valid measurement"
    if min(values) <= 0:
        return "a '%s' of %g: the fraction of the optimum needs values above 0" % (objective, min(values))
    return None


def run_seed(args):
    path, seed, budgets, asks_per_evaluation = args
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    params, table = load(path)
    sampler = optuna.samplers.TPESampler(seed=seed)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    max_budget = max(budgets)
    evaluations = 0
    best = float("inf")
    best_at = [None] * len(budgets)
    seen = {}
    asks = 0
    cap = asks_per_evaluation * max_budget
    while evaluations < max_budget and asks < cap:
        asks += 1
        trial = study.ask()
        key = tuple(trial.suggest_categorical(name, values) for name, values in params)
        if key in seen:  # a repeat: answered from memory, free
            value = seen[key]
            if value is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, value)
            continue
        if key not in table:  # hidden constraint: free
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
            continue
        value = table[key]
        seen[key] = value
        evaluations += 1
        if value is None:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        else:
            study.tell(trial, value)
            best = min(best, value)
        for i, b in enumerate(budgets):
            if evaluations == b:
                best_at[i] = best if best != float("inf") else None
    for i, b in enumerate(budgets):
        if best_at[i] is None and evaluations < b:
            best_at[i] = best if best != float("inf") else None
    return best_at, evaluations


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=os.path.join(here, "..", "..", "shared", "fixtures", "tuning"))
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--budgets", default="25,50,100,200")
    ap.add_argument("--spaces", default="", help="comma-separated names (gemm,convolution,...); default all")
    ap.add_argument("--asks-per-evaluation", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    try:
        import optuna
    except ImportError:
        sys.stderr.write("optuna_replay: optuna is not installed (Debian package python3-optuna)\n")
        return 2
    budgets = [int(b) for b in a.budgets.split(",")]
    wanted = [s for s in a.spaces.split(",") if s]
    result = {}
    unreadable = 0
    paths = glob.glob(os.path.join(a.dir, "*.json.gz")) + glob.glob(os.path.join(a.dir, "*.json"))
    for path in sorted(paths):
        # As tune_replay_bench names spaces: the file name without .json(.gz) (kernel_device);
        # --spaces takes the whole name or the kernel.
        name = re.sub(r"\.json(\.gz)?$", "", os.path.basename(path))
        if wanted and name not in wanted and name.split("_")[0] not in wanted:
            continue
        if name.endswith("-metadata"):
            # Kernel Tuner's T4 output: NAME-results.json is read, NAME-metadata.json is no space.
            sys.stderr.write("optuna_replay: skipped: %s (T4 metadata, not a space)\n" % path)
            continue
        if not is_cache(path):
            # A plain .json beside the caches may be something else (the fixtures hold a T4 space
            # file), and a broken .json.gz should not stop the other spaces; tune_replay_bench
            # skips both too (and exits 2 for the second).
            sys.stderr.write("optuna_replay: skipped: %s is not a Kernel Tuner cache or T4 results file\n" % path)
            unreadable += path.endswith(".gz")
            continue
        why = unscorable(path)
        if why:
            sys.stderr.write("optuna_replay: skipped: %s: %s\n" % (path, why))
            unreadable += 1
            continue
        jobs = [(path, seed, budgets, a.asks_per_evaluation) for seed in range(a.seeds)]
        if a.jobs > 1:
            with multiprocessing.Pool(a.jobs) as pool:
                runs = pool.map(run_seed, jobs)
        else:
            runs = [run_seed(j) for j in jobs]
        result[name] = {"budgets": budgets, "best_at": [r[0] for r in runs], "evaluations": [r[1] for r in runs],
                        "optuna_version": optuna.__version__}
        sys.stderr.write("optuna_replay: %s done (%d seeds)\n" % (name, a.seeds))
    text = json.dumps(result) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    return 2 if unreadable else 0


if __name__ == "__main__":
    sys.exit(main())
