#!/usr/bin/env bash
# `make demo`: the reference study (DESIGN §0, study A) on the embedded simulator,
# shortened: native PyTorch, a FastAPI wrapper and TGI (Llama-2-7B FP16 on an A10G) on
# chat, long and mixed requests; P99 at 16 concurrent users, peak QPS and where it occurs.
# Results in demo-run/ (one folder per run, index.json / index.csv), report in
# demo-run/report.html. The full-length study: servebench run examples/reference-study.yaml
set -euo pipefail
bin="${1:-build/servebench}"
out="demo-run"
rm -rf "$out"
echo "== servebench demo: the reference study on the simulator (time x${SIM_TIME_SCALE:-0.005}, runs x${PLAN_SCALE:-0.2}) =="
"$bin" run examples/reference-study.yaml \
  --sim-time-scale "${SIM_TIME_SCALE:-0.005}" --scale "${PLAN_SCALE:-0.2}" \
  -o "$out"
"$bin" report "$out" -o "$out/report.html" --title "Reference study (simulator, shortened)"
echo
echo "Files written: $out/index.json, $out/index.csv, $(ls -d "$out"/[0-9]*/ | wc -l) run folders, $out/report.html"
