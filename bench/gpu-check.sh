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
