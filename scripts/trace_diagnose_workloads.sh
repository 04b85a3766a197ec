#!/usr/bin/env bash
# Traces every planted-root-cause workload of examples/diagnose/ with `cann-profiler trace` and
# diagnoses each trace, printing the top finding per workload.
#
#   scripts/trace_diagnose_workloads.sh [BUILD_DIR] [OUT_DIR] [WORKLOAD...]
#   scripts/trace_diagnose_workloads.sh build out/diagnose host_gap gc_pauses
#
# Needs Debian's python3-torch (/usr/bin/python3). Writes OUT_DIR/<workload>.pb, .log and, when
# the diagnose command exists, OUT_DIR/<workload>.diagnosis.json.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
out="${2:-$root/out/diagnose}"
shift $(( $# > 2 ? 2 : $# ))
bin="$build/cann-profiler"
[[ -x "$bin" ]] || { echo "no $bin: build the cann-profiler target" >&2; exit 2; }
mkdir -p "$out"
if [[ $# -gt 0 ]]; then
  workloads=("$@")
else
  workloads=()
  for f in "$root"/examples/diagnose/*.py; do workloads+=("$(basename "$f" .py)"); done
fi
for w in "${workloads[@]}"; do
  start=$(date +%s.%N)
  if ! "$bin" trace --output "$out/$w.pb" -- /usr/bin/python3 "$root/examples/diagnose/$w.py" >"$out/$w.log" 2>&1; then
    echo "$w: trace failed (see $out/$w.log)" >&2
    continue
  fi
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  summary="$(grep '^{"workload"' "$out/$w.log" | tail -1 || true)"
  if "$bin" diagnose --help >/dev/null 2>&1; then
    "$bin" diagnose --trace "$out/$w.pb" --format json --output "$out/$w.diagnosis.json" >/dev/null 2>&1 || true
    top="$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); f=d.get("findings") or []
print("%s conf=%.2f saving_ms=%.1f | %s" % (f[0]["category"], f[0]["confidence"], f[0]["saving_ns"]/1e6, f[0]["title"]) if f else "no findings")' \
      "$out/$w.diagnosis.json" 2>/dev/null || echo "?")"
  else
    top="(no diagnose command in this build)"
  fi
  printf '%-26s %5.1fs  %s\n    %s\n' "$w" "$secs" "$top" "$summary"
done
