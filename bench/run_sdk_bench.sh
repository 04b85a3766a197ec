#!/usr/bin/env bash
# The SDK hot-path benchmark (bench/sdk_benchmark.cc), traced and not traced.
# Target (issue 4): <= 20 ns per span (begin + end) on the hot path, traced.
#   bench/run_sdk_bench.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
bin=$build/bench/sdk_benchmark
[ -x "$bin" ] || cmake --build "$build" --target sdk_benchmark
session=$(mktemp -d "${TMPDIR:-/tmp}/cprof-sdk-bench-XXXXXX")
trap 'rm -rf "$session"' EXIT

echo "-- traced (CPROF_SESSION_DIR set: records are kept and written out)"
CPROF_SESSION_DIR=$session "$bin" --benchmark_min_time=0.3 --benchmark_format=console \
  --benchmark_out="$session/traced.json" --benchmark_out_format=json
echo "-- not traced (every call returns at once)"
"$bin" --benchmark_min_time=0.3 --benchmark_filter='BM_Span|BM_ScopeMacro'

/usr/bin/python3 - "$session/traced.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for b in doc["benchmarks"]:
    if b["name"].startswith("BM_Span/manual_time") and "threads" not in b["name"]:
        ns = 1e9 / b["items_per_second"]
        verdict = "ok" if ns <= 20 else "ABOVE TARGET"
        print(f"sdk span (begin+end), traced: {ns:.1f} ns  [target <= 20 ns: {verdict}]")
PY
