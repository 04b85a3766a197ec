#!/usr/bin/env bash
# Overhead of `cann-profiler trace` at default settings against no profiler and against
# torch.profiler (what users run today), side by side, on PyTorch workloads: many small operators
# and a few large ones (Python), and the UNet of examples/aigc (C++ libtorch, no torch.profiler
# there) on one and on two intra-op threads.
#
# Design: ROUNDS rounds; in each, every configuration of a workload runs once, in a shuffled order,
# and its loop time (start-up and trace writing excluded) is divided by the same round's
# no-profiler time. A shared VM's speed drifts by tens of percent between minutes, so unpaired
# medians of a few runs cannot resolve a 2% overhead; the per-round ratio cancels the drift.
# Reported: the median ratio with a bootstrap 95% interval. Targets (issue 4): trace <=
# torch.profiler on small and large; trace <= 5% on large.
# Page faults on the heap are luck, not profiler cost: glibc returns a large tensor's memory to the
# OS when it is freed unless an earlier free raised its dynamic mmap threshold, and whether one did
# depends on everything else the process allocated, a profiler included (12-19 us a fault on this
# VM). The large-op loop therefore writes its outputs in place (its faults: 3070-3090 in 8
# iterations under every configuration), and the UNet runs with glibc's mmap and trim thresholds
# raised, with and without trace: its step moves by -33% to +25% with the heap's layout otherwise
# (see `diagnose`'s page_fault_churn).
#   bench/run_trace_overhead_bench.sh [BUILD_DIR] [ROUNDS]      WORKLOADS="unet1 unet2" for a subset
set -euo pipefail
build=${1:-build}
rounds=${2:-15}
cd "$(dirname "$0")/.."
cli=$build/cann-profiler
unet=$build/examples/unet
[ -x "$cli" ] || cmake --build "$build" --target cann-profiler
py=/usr/bin/python3
work=bench/trace_overhead_workload.py
out=$(mktemp -d "${TMPDIR:-/tmp}/cprof-overhead-XXXXXX")
trap 'rm -rf "$out"' EXIT

loop_s() {  # loop_s WORKLOAD CONFIG: prints the loop time in seconds
  local w=$1 c=$2 line
  case $w in
    small|large)
      local args=(--workload "$w")
      [ "$w" = large ] && args+=(--iterations 8)
      case $c in
        none)  line=$($py $work "${args[@]}") ;;
        torch) line=$($py $work "${args[@]}" --profiler torch) ;;
        trace) line=$("$cli" trace --output "$out/t.pb" -- $py $work "${args[@]}" 2>>"$out/trace.err") ;;
      esac
      $py -c 'import json, sys; print(json.loads(sys.argv[1])["loop_s"])' "$line" ;;
    unet1|unet2)
      local args=(--steps 20 --threads "${w#unet}")
      export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
      case $c in
        none)  line=$("$unet" "${args[@]}" | tail -n 1) ;;
        trace) line=$("$cli" trace --output "$out/t.pb" -- "$unet" "${args[@]}" 2>>"$out/trace.err" | tail -n 1) ;;
      esac
      $py -c 'import json, sys; r = json.loads(sys.argv[1]); print(r["latency_ms"] * r["steps"] / 1000)' "$line" ;;
  esac
}

workloads=${WORKLOADS:-small large$([ -x "$unet" ] && echo " unet1 unet2")}
for ((r = 0; r < rounds; r++)); do
  for w in $workloads; do
    configs="none torch trace"
    [[ $w == unet* ]] && configs="none trace"
    for c in $(printf '%s\n' $configs | shuf); do
      echo "{\"round\": $r, \"workload\": \"$w\", \"config\": \"$c\", \"loop_s\": $(loop_s "$w" "$c")}" >> "$out/results.jsonl"
    done
  done
  echo "round $((r + 1))/$rounds done" >&2
done
tail -n 1 "$out/trace.err" || true

$py - "$out/results.jsonl" <<'PY'
import json, random, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
random.seed(1)

def median_ci(xs):
    boots = sorted(statistics.median(random.choices(xs, k=len(xs))) for _ in range(2000))
    return statistics.median(xs), boots[50], boots[1949]

ok = True
print(f"{'workload':<8} {'config':<7} {'none (median)':>14} {'overhead (median of paired ratios)':>36}")
for w in dict.fromkeys(r["workload"] for r in rows):
    by = {}
    for r in rows:
        if r["workload"] == w:
            by.setdefault(r["round"], {})[r["config"]] = r["loop_s"]
    none = statistics.median(v["none"] for v in by.values())
    med = {}
    for c in ("torch", "trace"):
        ratios = [v[c] / v["none"] for v in by.values() if c in v]
        if not ratios:
            continue
        m, lo, hi = median_ci(ratios)
        med[c] = m
        print(f"{w:<8} {c:<7} {none:>12.3f} s {100 * (m - 1):>+10.1f}%  [{100 * (lo - 1):+.1f}%, {100 * (hi - 1):+.1f}%]"
              f"  ({len(ratios)} rounds)")
    if "torch" in med:
        # The direct comparison: trace's loop time over torch.profiler's in the same round.
        pair = [v["trace"] / v["torch"] for v in by.values() if "trace" in v and "torch" in v]
        m, lo, hi = median_ci(pair)
        print(f"{w:<8} trace/torch.profiler {100 * (m - 1):>+14.1f}%  [{100 * (lo - 1):+.1f}%, {100 * (hi - 1):+.1f}%]")
    if "torch" in med and med["trace"] > med["torch"]:
        ok = False
        print(f"  {w}: trace costs more than torch.profiler")
    if w == "large" and med["trace"] > 1.05:
        ok = False
        print("  large: trace overhead above 5%")
print("targets met" if ok else "TARGETS NOT MET")
PY
