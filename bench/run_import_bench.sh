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
# Warm the page cache so the runs measure parsing more than the disk.
cat "$trace" > /dev/null
# On a shared machine, run the benchmark in its own scheduler group at high priority when allowed
# (root or CAP_SYS_NICE), so background jobs do not decide the wall time; else run as is.
run() {
  if [ "${CPROF_BENCH_PRIORITY:-1}" = 1 ] && [ -w /proc/self/autogroup ]; then
    setsid -w bash -c 'echo -20 > /proc/$$/autogroup 2>/dev/null; nice -n -20 true 2>/dev/null && exec nice -n -20 "$@"; exec "$@"' _ "$@"
  else
    "$@"
  fi
}
# One import per process for the memory figure (a second run in the same process would count
# what the allocator keeps from the first), then two more for the best throughput.
run /usr/bin/time -v "$bin" "$trace" 2>"$log"
grep -E "Maximum resident|Elapsed|User time|System time" "$log" | sed 's/^\s*/  /'
run "$bin" --repeat 2 "$trace" | grep -E "^run|^best"

bytes=$(stat -L -c %s "$trace")
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
/usr/bin/python3 - "$bytes" "$rss_kb" <<'PY'
import sys
size, rss = int(sys.argv[1]), int(sys.argv[2]) * 1024
print(f"peak RSS / file size: {rss / size:.2f}  [target <= 1.0: {'ok' if rss <= size else 'ABOVE TARGET'}]")
PY
if [ "${CPROF_BENCH_PRIORITY:-1}" = 1 ] && [ -w /proc/self/autogroup ]; then how="ran in its own scheduler group at nice -20"; else how="ran at normal priority"; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; the benchmark $how"
