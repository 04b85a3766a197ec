#!/usr/bin/env bash
# make bench: runs every benchmark script under bench/ against the given build directory.
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
status=0
for script in bench/run_*_bench.sh; do
  [ -e "$script" ] || continue
  echo "== $script"
  "$script" "$build" || status=1
done
exit $status
