#!/usr/bin/env bash
# Cluster analysis benchmark (issue 3): 64 torch_npu ranks made by copying the two fixture ranks
# (rank ids rewritten: 32 copies of each, ~179 MB), then
#   1. `cann-profiler cluster` on the summary tables (what msprof-analyze `cluster -m all` reads),
#   2. `cann-profiler cluster --full_trace` (every trace_view.json and table imported),
# each timed with /usr/bin/time (wall seconds, peak RSS), best of 3.
# msprof-analyze is run side by side when MSPROF_ANALYZE names its command (e.g.
# "python3 -m msprof_analyze"); otherwise its numbers from the issue are printed for reference
# (3.9 s, 106 MB on the issue's machine) and marked as not measured here.
#
#   bench/run_cluster_bench.sh [build-dir] [ranks]
set -euo pipefail
build=${1:-build}
ranks=${2:-64}
cd "$(dirname "$0")/.."
bin="$build/cann-profiler"
fixtures="$(cd ../shared/fixtures/ascend/text_level1 && pwd)"
[ -x "$bin" ] || { echo "no $bin; build first" >&2; exit 2; }
work=$(mktemp -d /tmp/cprof_cluster_bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

for ((i = 0; i < ranks; i++)); do
  src="$fixtures/rank$((i % 2))_ascend_pt"
  dst="$work/cluster/rank${i}_ascend_pt"
  mkdir -p "$dst"
  cp -r "$src/ASCEND_PROFILER_OUTPUT" "$dst/"
  cp "$src/profiler_metadata.json" "$dst/"
  sed -E "s/\"rank_id\": [0-9]+/\"rank_id\": $i/" "$src/profiler_info_$((i % 2)).json" > "$dst/profiler_info_$i.json"
done
chmod -R u+w "$work/cluster"
size=$(du -sm "$work/cluster" | cut -f1)
echo "cluster set: $ranks ranks, ${size} MB in $work/cluster"

measure() {  # measure LABEL CMD...: best wall time and its peak RSS over 3 runs
  local label=$1; shift
  local best_t="" best_rss=""
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || { cat "$work/err" >&2; return 1; }
    read -r t rss < "$work/time"
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then best_t=$t; best_rss=$rss; fi
  done
  printf "%-44s %8.2f s %8.1f MB\n" "$label" "$best_t" "$(awk "BEGIN{print $best_rss/1024}")"
  echo "$best_t $best_rss" > "$work/result_$label"
}

echo
printf "%-44s %10s %11s\n" "" "wall" "peak RSS"
measure "cann-profiler cluster (summary tables)" "$bin" cluster "$work/cluster" --json
cp "$work/out" "$work/summary.json"
measure "cann-profiler cluster --full_trace" "$bin" cluster "$work/cluster" --full_trace --json
if [ -n "${MSPROF_ANALYZE:-}" ]; then
  measure "msprof-analyze cluster -m all" $MSPROF_ANALYZE cluster -d "$work/cluster" -m all
  read -r mt mrss < "$work/result_msprof-analyze"
else
  echo "msprof-analyze cluster -m all                 (not run here: MSPROF_ANALYZE unset; the issue measured 3.9 s, 106 MB)"
  mt=3.9; mrss=$((106 * 1024))
fi
read -r ot orss < "$work/result_cann-profiler cluster (summary tables)"
awk "BEGIN{printf \"\nspeed-up over msprof-analyze (summary tables): %.1fx time, %.1fx memory\n\", $mt/$ot, $mrss/$orss}"
python3 - "$work/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"ranks read: {d['rank_count']}, unreadable: {len(d['unreadable_ranks'])}, slow ranks: "
      f"{[s['rank'] for s in d['slow_ranks']]} ({d['straggler_test']['note'][:80]}...)")
PY
