#!/usr/bin/env bash
# The demo: profile a real PyTorch CPU training run (Debian's python3-torch), then summarize it.
set -euo pipefail
build=${1:-build}
out=${2:-out}
mkdir -p "$out"
python=/usr/bin/python3   # Debian's interpreter: the one that sees python3-torch

echo "== 1/3 run examples/pytorch_cpu/train.py under torch.profiler"
"$python" examples/pytorch_cpu/train.py --output "$out/demo_trace.json" --steps 8

echo "== 2/3 cann-profiler summary $out/demo_trace.json"
"$build/cann-profiler" summary "$out/demo_trace.json"

echo "== 3/3 cann-profiler convert to Perfetto protobuf (open it in ui.perfetto.dev)"
"$build/cann-profiler" convert "$out/demo_trace.json" "$out/demo_trace.pb"
"$build/cann-profiler" summary "$out/demo_trace.pb" --json > "$out/demo_summary.json"
echo "wrote $out/demo_trace.pb and $out/demo_summary.json"
