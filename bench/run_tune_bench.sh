#!/usr/bin/env bash
# Tuner sample efficiency on the replayed Kernel Tuner spaces in ../shared/fixtures/tuning: every
# sampler of ours, random search (its exact expectation) and Optuna's TPE, at budgets 25, 50, 100,
# 200 over 50 seeds; prints one table per space (mean fraction of the optimum and the methodology
# score) and writes the numbers to <build>/bench/tune_replay.json.
#   bench/run_tune_bench.sh [build-dir]        SEEDS=10 SAMPLERS=auto,random for a quick look
# TUNE_CACHES=path replays the Kernel Tuner caches (*.json or *.json.gz, named kernel_device) found there
# instead of the fixtures.
# Then the same for the held-out sub-spaces of bench/make_derived_spaces.py (HELDOUT=0 skips them),
# RANDOM_SPACES=N sub-spaces drawn at random (make_derived_spaces.py --random N; RANDOM_SEED=S),
# and a hotspot-shaped space with synthetic times (SCALE=0 skips it).
set -euo pipefail
build=${1:-build}
dir_args=()
[ -n "${TUNE_CACHES:-}" ] && dir_args=(--dir "$(realpath "$TUNE_CACHES")")
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
status=0
if /usr/bin/python3 -c 'import optuna' 2>/dev/null; then
  echo "Optuna TPE: $seeds seeds per space ($jobs processes)..." >&2
  # A cache that does not replay is skipped by both (exit 2 at the end): the others still run.
  /usr/bin/python3 bench/optuna_replay.py "${dir_args[@]}" --seeds "$seeds" --budgets "$budgets" --jobs "$jobs" \
    --out "$out/optuna_replay.json" || status=$?
  optuna_args=(--optuna "$out/optuna_replay.json")
else
  echo "run_tune_bench: python3-optuna missing; the table has no Optuna row" >&2
fi
"$bin" "${dir_args[@]}" --seeds "$seeds" --budgets "$budgets" --samplers "$samplers" --jobs "$jobs" \
  --json "$out/tune_replay.json" "${optuna_args[@]}" || status=$?

# Held-out sub-spaces (bench/make_derived_spaces.py): the default sampler only, as a check that its
# settings, chosen on the three spaces above, carry over. HELDOUT=0 skips them.
if [ "${HELDOUT:-1}" != 0 ]; then
  /usr/bin/python3 bench/make_derived_spaces.py "$out/derived"
  echo "Held-out sub-spaces (default sampler):" >&2
  "$bin" --dir "$out/derived" --seeds "$seeds" --budgets "$budgets" --samplers auto --jobs "$jobs" \
    --json "$out/tune_replay_heldout.json"
fi

# Sub-spaces drawn at random (half the values of one or two parameters): how often the default
# sampler meets its target on spaces no setting was chosen on. RANDOM_SPACES=24 took 7 min on 2
# cores at 100 seeds and budgets 25 and 50, 43 min at 30 seeds and budgets 100 and 200.
if [ "${RANDOM_SPACES:-0}" != 0 ]; then
  /usr/bin/python3 bench/make_derived_spaces.py --random "$RANDOM_SPACES" --seed "${RANDOM_SEED:-1}" \
    "$out/random-${RANDOM_SPACES}-${RANDOM_SEED:-1}"
  echo "Random sub-spaces (default sampler):" >&2
  "$bin" --dir "$out/random-${RANDOM_SPACES}-${RANDOM_SEED:-1}" --seeds "$seeds" --budgets "$budgets" --samplers auto \
    --jobs "$jobs" --json "$out/tune_replay_random.json"
fi

# A space shaped like Kernel Tuner's hotspot (22.2M combinations, 1.6% exist; synthetic times,
# bench/make_hotspot_shaped_space.py): a check that the tuner copes with a large product where few
# configurations exist (proposals walked past: CPROF_BENCH_TRACE=1). SCALE=0 skips it.
if [ "${SCALE:-1}" != 0 ]; then
  /usr/bin/python3 bench/make_hotspot_shaped_space.py "$out/scale"
  echo "Hotspot-shaped space, synthetic times (default sampler):" >&2
  "$bin" --dir "$out/scale" --seeds "$seeds" --budgets "$budgets" --samplers auto,random --jobs "$jobs" \
    --json "$out/tune_replay_scale.json"
fi
exit "$status"
