#!/usr/bin/env bash
# `make demo`: a short benchmark of the embedded simulator's TGI preset
# (Llama-2-7B FP16 on an A10G, continuous batching), results in demo-run/.
set -euo pipefail
bin="${1:-build/servebench}"
out="demo-run"
rm -rf "$out"
echo "== servebench demo: TGI-like simulator, chat-sized prompts, 16 concurrent users =="
"$bin" prof --sim tgi --api tgi \
  --num-requests 120 --warmup 8 --concurrency 16 \
  --input-length 64 --output-length 64 \
  --goodput ttft:500 --goodput tpot:50 \
  --output-dir "$out"
"$bin" report "$out" -o "$out/report.html"
echo
echo "Files written:"
ls -l "$out"
