#!/usr/bin/env bash
# What one CPU sample of `trace` costs the thread it interrupts, at several rates
# (bench/perf_sample_cost.cc: enabled and disabled windows alternate on one compute-bound thread).
# It sets trace's default rate (collect/collect_options.h, kDefaultCpuSamplingHz): on this 2-core
# VM a sample costs ~45-50 us (a timer interrupt in a guest), 1% of a busy thread at 199 Hz.
#   bench/run_perf_sample_cost_bench.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
bin=$build/bench/perf_sample_cost
[ -x "$bin" ] || cmake --build "$build" --target perf_sample_cost
"$bin" --hz 99,199,499,999 --windows 60
