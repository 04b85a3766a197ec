#!/usr/bin/env bash
# Tuner sample efficiency on the replayed Kernel Tuner spaces in ../shared/fixtures/tuning: every
# sampler of ours, random search (its exact expectation) and Optuna's TPE, at budgets 25, 50, 100,
# 200 over 50 seeds; prints one table per space (mean fraction of the optimum and the methodology
# score) and writes the numbers to <build>/bench/tune_replay.json.
#   bench/run_tune_bench.sh [build-dir]        SEEDS=10 SAMPLERS=auto,random for a quick look
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
seeds=${SEEDS:-50}
budgets=${BUDGETS:-25,50,100,200}
samplers=${SAMPLERS:-auto,gp,tpe,evolution,random}
jobs=${JOBS:-$(nproc)}
out="$build/bench"
mkdir -p "$out"
bin="$out/tune_replay_bench"
[ -x "$bin" ] || { echo "run_tune_bench: $bin not built (cmake --build $build --target tune_replay_bench)" >&2; exit 1; }

optuna_args=()
if /usr/bin/python3 -c 'import optuna' 2>/dev/null; then
  echo "Optuna TPE: $seeds seeds per space ($jobs processes)..." >&2
  /usr/bin/python3 bench/optuna_replay.py --seeds "$seeds" --budgets "$budgets" --jobs "$jobs" \
    --out "$out/optuna_replay.json"
  optuna_args=(--optuna "$out/optuna_replay.json")
else
  echo "run_tune_bench: python3-optuna missing; the table has no Optuna row" >&2
fi
"$bin" --seeds "$seeds" --budgets "$budgets" --samplers "$samplers" --jobs "$jobs" \
  --json "$out/tune_replay.json" "${optuna_args[@]}"
