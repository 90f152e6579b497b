#!/usr/bin/env bash
# `make demo`: the reference study (docs/architecture.md, study A) on the embedded simulator, shortened:
# native PyTorch, a FastAPI wrapper and TGI (Llama-2-7B FP16 on an A10G) on chat, long and
# mixed requests at concurrency 1 to 200. Prints the study's tables (P99 at 200 concurrent
# users, peak QPS and where, knee, max stable load, GPU use, TTFT; n and a 95% interval per
# cell, nothing judged from fewer than 30 requests) and a recommendation per scenario.
# Results in demo-run/ (one folder per run, index.json / index.csv), report in
# demo-run/report.html. The full-length study: servebench run examples/reference-study.yaml;
# the demo then predicts it in virtual time (demo-run-predicted/, seconds).
#
# Time: the simulator runs SIM_TIME_SCALE (default 0.004) times faster than the modelled
# GPU, so the whole study takes about two minutes on two cores; every table says so, and
# shows model time (wall ÷ scale) beside the measured wall-clock values.
set -euo pipefail
bin="${1:-build/servebench}"
out="demo-run"
scale="${SIM_TIME_SCALE:-0.004}"
runs="${PLAN_SCALE:-0.2}"
rm -rf "$out"
echo "== servebench demo: the reference study on the simulator, simulated at ×$scale" \
  "(every modelled duration × $scale), runs × $runs =="
echo "   (progress on stderr; the tables follow when the plan is done)"
"$bin" run examples/reference-study.yaml --sim-time-scale "$scale" --scale "$runs" \
  -o "$out" >/dev/null
echo
"$bin" report "$out" -o "$out/report.html" --title "Reference study (simulated at ×$scale)"
echo
echo "Files written: $out/index.json, $out/index.csv, $(ls -d "$out"/[0-9]*/ | wc -l) run" \
  "folders, $out/report.html"

# The same study at full length in virtual time: `servebench predict` runs the simulator's
# model as a discrete-event simulation (no sockets, model time), seconds instead of hours.
predicted="demo-run-predicted"
rm -rf "$predicted"
echo
echo "== the same study at full length, predicted in virtual time (servebench predict) =="
start_s=$(date +%s)
"$bin" predict run examples/reference-study.yaml -o "$predicted" > "$predicted.txt" 2>&1 ||
  { tail -n 20 "$predicted.txt"; exit 1; }
"$bin" report "$predicted" -o "$predicted/report.html" \
  --title "Reference study (predicted in virtual time, full length)" > /dev/null
echo "   $(( $(date +%s) - start_s )) s; its tables in $predicted.txt, its report in" \
  "$predicted/report.html"
echo "   Hardware, energy and cost (A10G/L4/A100/H100 x fp16/int4, J/token, \$/M tokens, Pareto): $bin predict run examples/hardware-comparison.yaml -o hw && $bin report hw -o hw/report.html"
