#!/usr/bin/env bash
# The JSON import benchmark: a ~600 MB Kineto trace (real HTA trace tiled along time), imported
# into a finished Trace, under /usr/bin/time -v.
# Target (foundation issue): >= 300 MB/s end to end on a 2-core machine, peak RSS <= 1.0x the file.
#   bench/run_import_bench.sh [BUILD_DIR] [TARGET_MB]
set -euo pipefail
build=${1:-build}
target_mb=${2:-600}
cd "$(dirname "$0")/.."
bin=$build/bench/cprof_import_benchmark
[ -x "$bin" ] || cmake --build "$build" --target cprof_import_benchmark
data=$build/bench-data
trace=$data/big_kineto_${target_mb}mb.json
if [ ! -s "$trace" ]; then
  mkdir -p "$data"
  /usr/bin/python3 bench/make_big_kineto.py --target-mb "$target_mb" --out "$trace" \
    --source ../shared/fixtures/kineto/hta/trace_diff/control/control.json.gz
fi

log=$(mktemp "${TMPDIR:-/tmp}/cprof-import-bench-XXXXXX")
trap 'rm -f "$log"' EXIT
# Warm the page cache so the first run measures parsing, not the disk.
cat "$trace" > /dev/null
/usr/bin/time -v "$bin" --repeat 3 "$trace" 2>"$log"
grep -E "Maximum resident|Elapsed|User time|System time" "$log" | sed 's/^\s*/  /'

bytes=$(stat -c %s "$trace")
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
/usr/bin/python3 - "$bytes" "$rss_kb" <<'PY'
import sys
size, rss = int(sys.argv[1]), int(sys.argv[2]) * 1024
print(f"peak RSS / file size: {rss / size:.2f}  [target <= 1.0: {'ok' if rss <= size else 'ABOVE TARGET'}]")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (other work on the machine slows the run)"
