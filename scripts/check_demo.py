#!/usr/bin/env python3
"""Runs a shortened `make demo` and checks that its parts agree with each other.

  scripts/check_demo.py BUILD_DIR WORK_DIR [unet|gpt] [--top_fix]

Checks: the plan names a diagnosed category; a knob of the space has `fixes:` for a diagnosed
category, the study evaluated the guided starts right after the default and one of them beat the
default (the diagnosis pointed the right way; which finding comes first, and whether its fix alone
pays, depends on the machine: on one thread the unet runs its 1x1 convolutions through im2col in
either layout, so one layout end to end pays 0-25%, and channels_last alone was 3% slower than
mixed on one VM, 20% faster on another); the tuned configuration beats the default; validate calls
the step time improved (significant) and nothing regressed; runtime_adjustment.yaml was written.
With --top_fix, also: the validated configuration applies the top finding's fix (its category's
value in the space's fixes:). Without it that is only reported: several knobs can fix one cause
(tune may reach the same speed-up by another route).
Exit 1 with the reason otherwise.
"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print(f"check_demo: FAIL: {msg}")
    sys.exit(1)


def main():
    build, work = sys.argv[1], sys.argv[2]
    workload = sys.argv[3] if len(sys.argv) > 3 else "unet"
    require_top_fix = "--top_fix" in sys.argv[4:]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, DEMO_BUDGET="5", DEMO_RUNS="5",
               DEMO_ARGS="--steps 8" if workload == "unet" else "--max_tokens 16")
    run = subprocess.run([os.path.join(root, "scripts/demo.sh"), os.path.abspath(build), os.path.abspath(work), workload],
                         cwd=root, env=env, capture_output=True, text=True)
    print(run.stdout[-3000:])
    if run.returncode != 0:
        print(run.stderr[-3000:])
        fail(f"demo.sh exited with {run.returncode}")
    d = os.path.join(work, "demo" if workload == "unet" else "demo-gpt")
    diag = json.load(open(os.path.join(d, "root_cause_report.json")))
    categories = [f["category"] for f in diag["findings"] if f["confidence"] >= 0.3]
    if not categories:
        fail("diagnose found nothing with confidence >= 0.3 in the default configuration")
    plan = open(os.path.join(d, "optimization_plan.md")).read()
    if not any(c in plan for c in categories):
        fail(f"the plan names none of the diagnosed categories {categories}")
    tune = json.load(open(os.path.join(d, "tuning_report.json")))
    space = open(os.path.join(root, "examples/aigc", f"{workload}_space.yaml")).read()
    defaults = dict(re.findall(r"name:\s*(\w+),.*?default:\s*([\w.]+)", space))
    chosen = json.load(open(os.path.join(d, "chosen_configuration.json")))["params"]  # what validate ran
    changed = {k for k, v in chosen.items() if str(v) != defaults.get(k)}
    if not changed:
        fail("the tuned configuration is the default")
    fixed_by_diagnosis = set()
    for line in re.findall(r"name:\s*(\w+).*?fixes:\s*\{([^}]*)\}", space, flags=re.S):
        name, fixes = line
        if any(c in fixes for c in categories):
            fixed_by_diagnosis.add(name)
    if not fixed_by_diagnosis:
        fail(f"no knob of the space addresses the diagnosed categories {categories}")
    # The top finding's fix (its category's value in the space's fixes:) is what was validated.
    top = diag["findings"][0]["category"]
    top_fix = {name: re.search(rf"\b{top}:\s*([\w.]+)", fixes).group(1)
               for name, fixes in re.findall(r"name:\s*(\w+).*?fixes:\s*\{([^}]*)\}", space, flags=re.S)
               if re.search(rf"\b{top}:", fixes)}
    top_fix_applied = any(str(chosen.get(k)) == v for k, v in top_fix.items())
    if not top_fix_applied:
        msg = f"the validated configuration {chosen} does not apply the top finding's ({top}) fix {top_fix}"
        if require_top_fix:
            fail(msg)
        print(f"check_demo: note: {msg}")
    history = tune.get("history") or []
    guided = [t for t in history if t.get("sampler") == "guided"]
    if not guided:
        fail("the study never evaluated the guided start from the diagnosis")
    default = [t for t in history if t.get("sampler") == "default" and t.get("state") == "complete"]
    if not default or not (tune["best_value"] < default[0]["metrics"]["latency_ms"]):
        fail("the tuned configuration does not beat the default in the study")
    base = default[0]["metrics"]["latency_ms"]
    ran = [g for g in guided if g.get("state") == "complete"]
    if ran and not any(g["metrics"]["latency_ms"] < base for g in ran):
        fail(f"no guided start ({[g['params'] for g in ran]}) is faster than the default: "
             "the diagnosis pointed the wrong way")
    if ran and not ran[0]["metrics"]["latency_ms"] < base:
        print(f"check_demo: note: the top finding's guided start ({ran[0]['params']}) alone is not faster than "
              "the default here")
    val = json.load(open(os.path.join(d, "validation_report.json")))
    verdicts = {m["name"]: m["verdict"] for m in val["metrics"]}
    if verdicts.get("step_time") != "improved":
        fail(f"validate did not call the step time improved: {verdicts}")
    if "regressed" in verdicts.values():
        fail(f"validate found a regression: {verdicts}")
    adj = open(os.path.join(d, "runtime_adjustment.yaml")).read()
    if "schema_version" not in adj:
        fail("runtime_adjustment.yaml has no schema_version")
    print(f"check_demo: ok: diagnosed {categories}, changed {sorted(changed)}, knobs addressing the diagnosis "
          f"{sorted(fixed_by_diagnosis)}, top finding's fix {top_fix} {'applied' if top_fix_applied else 'not applied'}, "
          f"validate {verdicts}")


if __name__ == "__main__":
    main()
