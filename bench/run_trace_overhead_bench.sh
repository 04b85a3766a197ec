#!/usr/bin/env bash
# Overhead of `cann-profiler trace` at default settings against no profiler and against
# torch.profiler (what users run today), side by side, on a PyTorch workload with many small
# operators and on one with large ones. Each configuration runs REPEATS times, interleaved;
# the median loop time is reported (start-up and trace writing excluded; whole-command wall
# time reported too). Targets (issue 4): trace <= torch.profiler on both; <= 5% on large ops.
#   bench/run_trace_overhead_bench.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
build=${1:-build}
repeats=${2:-5}
cd "$(dirname "$0")/.."
cli=$build/cann-profiler
[ -x "$cli" ] || cmake --build "$build" --target cann-profiler
py=/usr/bin/python3
work=bench/trace_overhead_workload.py
out=$(mktemp -d "${TMPDIR:-/tmp}/cprof-overhead-XXXXXX")
trap 'rm -rf "$out"' EXIT

run() {  # run NAME WORKLOAD: appends {"config", "loop_s", "wall_s"} to $out/results.jsonl
  local name=$1 workload=$2 t0 t1 line
  t0=$(date +%s.%N)
  case $name in
    none)  line=$($py $work --workload "$workload") ;;
    torch) line=$($py $work --workload "$workload" --profiler torch) ;;
    trace) line=$("$cli" trace --output "$out/$workload.pb" -- $py $work --workload "$workload" 2>"$out/trace.err") ;;
  esac
  t1=$(date +%s.%N)
  echo "{\"config\": \"$name\", \"wall_s\": $($py -c "print($t1 - $t0)"), \"result\": $line}" >> "$out/results.jsonl"
}

for workload in small large; do
  for ((i = 0; i < repeats; i++)); do
    for name in none torch trace; do run $name $workload; done
  done
done
tail -n 2 "$out/trace.err" || true

$py - "$out/results.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = True
print(f"{'workload':<8} {'config':<7} {'loop (median)':>14} {'overhead':>9} {'wall (median)':>14}")
for w in ("small", "large"):
    med = {}
    for c in ("none", "torch", "trace"):
        r = [x for x in rows if x["result"]["workload"] == w and x["config"] == c]
        med[c] = (statistics.median(x["result"]["loop_s"] for x in r), statistics.median(x["wall_s"] for x in r))
    for c in ("none", "torch", "trace"):
        over = 100 * (med[c][0] / med["none"][0] - 1)
        print(f"{w:<8} {c:<7} {med[c][0]:>12.3f} s {over:>8.1f}% {med[c][1]:>12.2f} s")
    if med["trace"][0] > med["torch"][0]:
        ok = False
        print(f"  {w}: trace costs more than torch.profiler")
    if w == "large" and med["trace"][0] > 1.05 * med["none"][0]:
        ok = False
        print("  large: trace overhead above 5%")
print("targets met" if ok else "TARGETS NOT MET")
PY
