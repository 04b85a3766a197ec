#!/usr/bin/env bash
# The performance map at scale: builds a synthetic Kineto trace of N slices (default 1M),
# renders it with `cann-profiler visualize`, compares the HTML's size with the same trace as
# Chrome JSON (the generator's file, and our Chrome JSON writer's output), and measures the
# timeline's panning frame rate in Debian's chromium (web/test/pan_bench.mjs).
#   bench/run_visualize_bench.sh [BUILD_DIR] [SLICES]
set -euo pipefail
build=${1:-build}
n=${2:-1000000}
cd "$(dirname "$0")/.."
cli=$build/cann-profiler
work=$build/bench_visualize
mkdir -p "$work"
if [ ! -x /usr/bin/chromium ] || [ ! -d web/node_modules/playwright-core ]; then
  echo "visualize bench: needs /usr/bin/chromium and web/node_modules (scripts/setup.sh, then build)"; exit 1
fi
json=$work/big_$n.json
[ -s "$json" ] || node web/test/gen_trace.mjs big "$json" "$n" >/dev/null
html=$work/big_$n.html
/usr/bin/time -f "visualize: %e s wall, %M KB peak RSS" "$cli" visualize --trace "$json" --output "$html"
chrome=$work/big_${n}_chrome.json
"$cli" convert "$json" "$chrome" >/dev/null 2>&1 || chrome=""
size() { stat -c %s "$1"; }
echo "slices: $n"
echo "generator's Kineto JSON: $(size "$json") bytes"
[ -n "$chrome" ] && echo "cann-profiler convert -> Chrome JSON: $(size "$chrome") bytes"
echo "performance map HTML: $(size "$html") bytes"
python3 - "$json" "$html" ${chrome:+"$chrome"} <<'PY'
import os, sys
j, h = os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])
print(f"HTML / generator JSON = 1/{j / h:.1f}")
if len(sys.argv) > 3:
    print(f"HTML / Chrome JSON (our writer) = 1/{os.path.getsize(sys.argv[3]) / h:.1f}")
PY
node web/test/pan_bench.mjs "$html" 3
