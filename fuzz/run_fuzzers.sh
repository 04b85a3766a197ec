#!/usr/bin/env bash
# Runs every libFuzzer target for FUZZ_SECONDS each (one at a time), each from a temporary corpus
# seeded with small files from the shared fixtures (copied into the build folder at run time, never
# into the repository); prints executions/s and total executions per target; exits non-zero if
# any target crashed, leaked, hit UB, timed out or ran out of memory (the reproducer is kept as
# BUILD/fuzz-run/<target>/crash-* etc., and named in the output).
#
#   fuzz/run_fuzzers.sh build-fuzz ../shared/fixtures 60            # what `make fuzz` runs
#   FUZZ_TARGETS="fuzz_json fuzz_msprof" fuzz/run_fuzzers.sh build-fuzz ../shared/fixtures 600
set -uo pipefail

build=${1:?build dir}
fixtures=${2:?fixtures dir}
seconds=${3:-60}
targets=${FUZZ_TARGETS:-"fuzz_json fuzz_ascend_folder fuzz_msprof fuzz_sqlite fuzz_perfetto_pb fuzz_tune_space fuzz_tune_config"}
max_seed_bytes=$((2 * 1024 * 1024))
max_seeds=40
run_root="$build/fuzz-run"
mkdir -p "$run_root"
run_root=$(cd "$run_root" && pwd)
fixtures=$(cd "$fixtures" && pwd)

# seed_from DEST FILE...: copies up to $max_seeds files of at most 2 MB into DEST.
seed_from() {
  local dest=$1 n=0 f
  shift
  mkdir -p "$dest"
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le "$max_seed_bytes" ] || continue
    cp "$f" "$dest/$(echo "${f#"$fixtures"/}" | tr '/' '_')"
    n=$((n + 1))
    [ "$n" -lt "$max_seeds" ] || break
  done
}

# small_db SRC DEST: SRC's schema with at most 30 rows per table (a seed SQLite can mutate at speed).
small_db() {
  local src=$1 dest=$2 t
  rm -f "$dest"
  sqlite3 "$src" .schema | sqlite3 "$dest" 2>/dev/null
  for t in $(sqlite3 "$src" "select name from sqlite_master where type='table' and name not like 'sqlite_%'"); do
    sqlite3 "$dest" "attach '$src' as s; insert into main.\"$t\" select * from s.\"$t\" limit 30;" 2>/dev/null
  done
}

seed_corpus() {
  local target=$1 corpus=$2
  case "$target" in
    fuzz_json)
      # Small traces only: a 1.7 MB .json.gz is 20+ MB of JSON, one execution a second.
      seed_from "$corpus" $(find "$fixtures/kineto" -name '*.json.gz' -size -200k | sort)
      # A gzip'd JSON seed mostly mutates into bad gzip; also give the plain text of the small ones.
      for f in $(find "$fixtures/kineto" -name '*.json.gz' -size -40k | sort); do
        gzip -dc "$f" > "$corpus/plain_$(basename "${f%.gz}")"
      done
      # torch_npu trace_view.json (2.2 MB): its metadata events and the first 400 others.
      python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))
keep = [e for e in ev if e.get("ph") == "M"] + [e for e in ev if e.get("ph") != "M"][:400]
json.dump(keep, open(sys.argv[2], "w"))' "$fixtures/ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json" \
        "$corpus/torch_npu_trace_view_head.json"
      # PyTorch 1.x legacy export (traceEvents without Kineto's fields, "X" and "f" events).
      printf '%s' '{"traceEvents":[{"name":"aten::add","ph":"X","ts":1,"dur":3,"pid":"CPU functions","tid":"PyTorch Profiler"},{"name":"conv","ph":"X","ts":2,"dur":1,"pid":"CUDA functions","tid":"stream 7"}]}' > "$corpus/legacy_1x.json"
      ;;
    fuzz_ascend_folder)
      seed_from "$corpus" $(find "$fixtures/ascend/text_level1/rank0_ascend_pt" -type f ! -name trace_view.json | sort)
      ;;
    fuzz_msprof)
      seed_from "$corpus" $(find "$fixtures/ascend/text_level1/rank0_ascend_pt" -name 'kernel_details.csv' -o -name 'op_statistic.csv' -o -name 'api_statistic.csv' -o -name 'communication*.json' | sort)
      printf 'Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n0,MatMul_1,AI_CORE,3,12,10.5,1700000000000.125\t,1700000000010.625\t\n0,hcom_allReduce_2,HCCL,5,13,4,1700000000011,1700000000015\n' > "$corpus/task_time.csv"
      printf '{"DeviceInfo":[{"id":0,"ai_core_num":24}],"rank_id":3}\n' > "$corpus/info.json"
      ;;
    fuzz_sqlite)
      for f in "$fixtures/nsys/saxpy-mpi-cuda.sqlite" "$fixtures/nsys/cloverleaf-cuda.sqlite" \
               "$fixtures/ascend/db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db" \
               "$fixtures/ascend/db_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db"; do
        mkdir -p "$corpus"
        small_db "$f" "$corpus/small_$(basename "$f")"
      done
      ;;
    fuzz_perfetto_pb)
      mkdir -p "$corpus"
      "$build/fuzz/fuzz_make_pb_seeds" "$corpus" $(find "$fixtures/kineto" -name '*.json.gz' -size -200k | sort) \
        "$fixtures/ascend/text_level1/rank0_ascend_pt" >/dev/null 2>"$run_root/pb_seeds.log" || true
      find "$corpus" -size +2M -delete
      ;;
    fuzz_tune_space)
      seed_from "$corpus" "$fixtures/tuning/convolution_space.json" $(git ls-files -- '*space*.yaml' 2>/dev/null | sed "s|^|$PWD/|")
      printf '%s' '{"tune_params_keys":["a","b"],"tune_params":{"a":[1,2,4],"b":["x","y"]},"restrictions":["a * 2 <= 8"],"cache":{}}' > "$corpus/kernel_tuner.json"
      ;;
    fuzz_tune_config)
      seed_from "$corpus" "$fixtures/tuning/convolution_space.json"
      printf '%b' 'findings:\n  - {category: thread_oversubscription, confidence: 0.8, title: "32 threads on 2 cores"}\n  - {category: layout_conversion, confidence: 0.6}\n' > "$corpus/report.yaml"
      printf '%s' '{"findings":[{"category":"memory_churn","confidence":0.9,"title":"t"}]}' > "$corpus/report.json"
      printf '%s' 'latency_ms:min,mem_mb:max' > "$corpus/objectives.txt"
      printf '%s' 'block_x * block_y <= 1024 and tile in [1, 2, 4] or not (x // 3 ** 2 > min(a, 1.5e3))' > "$corpus/expr.txt"
      printf '%s' '{"tune_params_keys":["a","b"],"tune_params":{"a":[1,2],"b":["x","y"]},"restrictions":["a > 1"],"cache":{"1,x":{"a":1,"b":"x","time":1.5,"times":[1.0,2.0]},"2,y":{"a":2,"b":"y","time":"RuntimeFailedConfig"}}}' > "$corpus/cache.json"
      ;;
  esac
}

failed=()
printf '%-20s %8s %12s %10s %s\n' target seconds execs execs/s result
for target in $targets; do
  exe="$build/fuzz/$target"
  [ -x "$exe" ] || { echo "$target: not built ($exe)"; failed+=("$target"); continue; }
  dir="$run_root/$target"
  rm -rf "$dir"
  mkdir -p "$dir/crashes"
  seed_corpus "$target" "$dir/corpus"
  # -max_len: the default (the largest seed) would let mutations grow a 2 MB seed; 4 MB is plenty.
  nice -n 10 "$exe" "$dir/corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=30 \
    -max_len=$((4 * 1024 * 1024)) -print_final_stats=1 -artifact_prefix="$dir/crashes/" \
    >"$dir/log.txt" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log.txt" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log.txt" | tail -1)
  result=ok
  if [ "$rc" -ne 0 ] || ls "$dir/crashes"/* >/dev/null 2>&1; then
    result="FAILED (rc $rc): $(ls "$dir/crashes" | tr '\n' ' ')see $dir/log.txt"
    failed+=("$target")
  fi
  printf '%-20s %8s %12s %10s %s\n' "$target" "$seconds" "${execs:-?}" "${rate:-?}" "$result"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all targets ran ${seconds}s each without a crash, leak, timeout or UB report"
