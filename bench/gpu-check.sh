#!/usr/bin/env bash
# GPU check without the simulator: servebench's NVML readings (`servebench monitor`,
# NVML through dlopen) against `nvidia-smi` readings taken over the same seconds.
# Prints both; exits 0 with a message when this machine has no NVIDIA GPU.
#   bench/gpu-check.sh [path/to/servebench] [seconds]
set -euo pipefail
bin=${1:-build/servebench}
secs=${2:-5}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi missing or finds no device); nothing to compare."
  exit 0
fi
[ -x "$bin" ] || { echo "gpu-check: servebench binary '$bin' not found (build it first)"; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
q=index,name,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm
nvidia-smi --query-gpu=$q --format=csv,noheader,nounits -lms 1000 > "$out/smi.csv" &
smi=$!
"$bin" monitor --duration "${secs}s" --gpu-telemetry nvml --telemetry-interval 1000 -o "$out/run" 2>&1 | sed 's/^/servebench: /'
kill $smi 2>/dev/null || true
wait $smi 2>/dev/null || true
echo "== nvidia-smi (index, name, sm %, mem %, used MiB, total MiB, W, C, SM MHz), per second:"
cat "$out/smi.csv"
echo "== servebench NVML series (mean / max over the same ${secs} s):"
python3 - "$out/run/summary.json" "$out/smi.csv" <<'PY'
import csv, json, sys
s = json.load(open(sys.argv[1]))
series = {x["key"]: x for x in s.get("telemetry", {}).get("series", []) if x["source"] == "gpu"}
if not series:
    print("no NVML series: " + json.dumps(s.get("telemetry", {}).get("sources", [])))
    sys.exit(1)
rows = [r for r in csv.reader(open(sys.argv[2])) if len(r) == 9]
fields = [("sm_util_pct", 2, 1), ("mem_util_pct", 3, 1), ("mem_used_bytes", 4, 1048576),
          ("mem_total_bytes", 5, 1048576), ("power_w", 6, 1), ("temperature_c", 7, 1), ("sm_clock_mhz", 8, 1)]
print(f"{'device':>6} {'field':<16} {'nvml mean':>14} {'smi mean':>14} {'nvml max':>14} {'smi max':>14}")
for dev in sorted({int(r[0]) for r in rows}):
    for name, col, scale in fields:
        x = series.get(f'gpu/{name}{{device="{dev}"}}')
        vals = []
        for r in rows:
            if int(r[0]) == dev:
                try: vals.append(float(r[col]) * scale)
                except ValueError: pass
        sm = sum(vals) / len(vals) if vals else float("nan")
        print(f"{dev:>6} {name:<16} {x['mean'] if x else float('nan'):>14.6g} {sm:>14.6g} "
              f"{x['max'] if x else float('nan'):>14.6g} {max(vals) if vals else float('nan'):>14.6g}")
PY

# Energy with NVML power: a short CPU-side load (the simulator on this machine's CPU, as its
# own server, so the run's power comes from NVML and not from the simulator's model) and its
# summary.json energy: J per output token of the GPU's draw over the measured window (the
# GPU itself idles: the figure checks the integration on real samples, not a model).
echo "== energy: prof against a CPU-side simulator, --gpu-telemetry nvml, 5 s"
"$bin" sim --preset tgi --port 0 > "$out/sim.url" 2>/dev/null &
sim=$!
trap 'kill $sim 2>/dev/null || true; rm -rf "$out"' EXIT
for _ in $(seq 50); do [ -s "$out/sim.url" ] && break; sleep 0.1; done
url=$(head -n1 "$out/sim.url" | grep -o 'http://[^ ]*' || true)
[ -n "$url" ] || { echo "gpu-check: the simulator did not print its URL"; exit 1; }
# One prof run of 5 s with NVML power; prints its summary.json energy block.
energy_run() {
  "$bin" prof --base-url "$url" --api tgi --concurrency 8 --duration 5s --output-length 64 \
    --gpu-telemetry nvml --telemetry-interval 200 -q --no-progress -o "$out/$1" 2>&1 |
    sed 's/^/servebench: /'
  python3 - "$out/$1/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
e = s.get("energy", {})
if not e.get("available"):
    print("no energy figure: " + str(e.get("reason")))
    sys.exit(1)
print(f"source {e['source']}: {e['samples']} samples over {e['window_s']:.2f} s, "
      f"{e['energy_j']:.1f} J, mean {e['mean_power_w']:.1f} W, "
      f"{e['j_per_output_token']:.4g} J/output token, "
      f"idle {e['idle_power_w']} W ({e['idle_source']}), gaps {e['gaps']}")
PY
}
energy_run energy

# The same load while the GPU works (a bf16 matmul loop in PyTorch, where python3 has it
# with CUDA): the integrated power must rise with the GPU's draw, and nvidia-smi's mean
# power over the same seconds is printed beside it.
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "== energy: the same prof while PyTorch keeps the GPU busy (bf16 matmuls, 9 s)"
  python3 - <<'PY' &
import time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
end = time.time() + 9
while time.time() < end:
    for _ in range(20): c = a @ b
    torch.cuda.synchronize()
PY
  burn=$!
  sleep 2
  nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits -lms 200 > "$out/busy.csv" &
  smi=$!
  energy_run energy-busy
  kill $smi 2>/dev/null || true
  wait $burn 2>/dev/null || true
  python3 -c "
import sys
v = [float(x) for x in open('$out/busy.csv') if x.strip()]
print(f'nvidia-smi power.draw over the same run: mean {sum(v)/len(v):.1f} W, {len(v)} readings')"
else
  echo "== energy with a busy GPU: skipped (python3 has no CUDA-enabled torch)"
fi
