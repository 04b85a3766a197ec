#!/usr/bin/env bash
# Import + diagnosis of the Ascend rank0 fixture (bench/npu_diagnose_benchmark.cc).
# Target (issue 5): under 230 ms, a tenth of msprof-analyze advisor's 2.3 s on the same folder.
#   bench/run_npu_diagnose_bench.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
bin=$build/bench/npu_diagnose_benchmark
[ -x "$bin" ] || cmake --build "$build" --target npu_diagnose_benchmark
out=$(mktemp "${TMPDIR:-/tmp}/cprof-npu-bench-XXXXXX.json")
trap 'rm -f "$out"' EXIT
"$bin" --benchmark_min_time=1 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out" --benchmark_out_format=json
/usr/bin/python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc["benchmarks"]:
    if b["name"].startswith("BM_ImportAndDiagnose") and b["name"].endswith("_median"):
        ms = b["real_time"]
        verdict = "ok" if ms < 230 else "ABOVE TARGET"
        print(f"import + diagnose (rank0_ascend_pt), median: {ms:.1f} ms  [target < 230 ms: {verdict}]")
PY
