#!/usr/bin/env bash
# validate's error rates on a real PyTorch workload (examples/pytorch_cpu/step_bench.py):
#  - false-positive rate from A/A pairs (the same configuration run repeatedly), with one run per
#    side (steps are the samples) and with several runs per side (the run is the unit);
#  - detection of a real change (channels_last, and oneDNN on/off) with the same two designs.
# Usage: bench/run_validate_bench.sh [BUILD_DIR] [RUNS_PER_CONFIG] [STEPS]
# Takes ~RUNS x 3 configs x (5 s + STEPS x step time); prints a table and writes
# $OUT_DIR/validate_bench.json. Runs are interleaved (A B C A B C ...) so slow drifts of the
# machine hit every configuration alike.
set -euo pipefail
build=${1:-build}
runs=${2:-12}
steps=${3:-30}
cd "$(dirname "$0")/.."
out=${OUT_DIR:-out/validate_bench}
python=${PYTHON:-/usr/bin/python3}
bin="$build/cann-profiler"
[ -x "$bin" ] || { echo "no $bin: build first" >&2; exit 2; }
mkdir -p "$out"/{a,cl,slow}

echo "== generating $runs runs x 3 configurations ($steps steps each) in $out"
for i in $(seq -w 1 "$runs"); do
  for cfg in a cl slow; do
    f="$out/$cfg/run_$i.json"
    [ -s "$f" ] && continue
    case $cfg in
      a) extra=() ;;
      cl) extra=(--channels_last) ;;
      slow) extra=(--mkldnn off) ;;
    esac
    "$python" examples/pytorch_cpu/step_bench.py --output "$f" --steps "$steps" --threads 1 "${extra[@]}" > /dev/null
  done
done

"$python" bench/validate_error_rates.py --bin "$bin" --dir "$out" --runs "$runs"
