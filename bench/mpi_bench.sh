#!/usr/bin/env bash
# Distributed load generation on one host (issue 9): the aggregate streamed-events rate with
# 1, 2 and 4 ranks against the `instant` simulator, then the cost of the final gather at
# 1 M requests. Usage: bench/mpi_bench.sh [BUILD_DIR=build-mpi] [SECONDS=5]
# Needs a build with -DSERVEBENCH_MPI=ON (targets servebench and mpi_gather).
set -euo pipefail
build=${1:-build-mpi}
secs=${2:-5}
bin=$build/servebench
cores=$(nproc)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun="mpirun --allow-run-as-root --oversubscribe --bind-to none"
tmp=$(mktemp -d)
trap 'kill $sim_pid 2>/dev/null || true; rm -rf "$tmp"' EXIT

# The simulator: 1 ms decode steps, so every stream carries ~1000 events/s; one thread.
"$bin" sim --preset instant --port 0 --threads 1 > "$tmp/sim.url" 2> "$tmp/sim.log" &
sim_pid=$!
for _ in $(seq 50); do [ -s "$tmp/sim.url" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/sim.url")

echo "servebench mpi_bench: $cores cores on this host ($(uname -n)); client ranks, the MPI"
echo "runtime and the simulator share them, so with $cores cores the aggregate rate is capped by"
echo "the host, not by the number of ranks. Load: closed loop, 64 streams, 512-token outputs, ${secs} s."
printf '%-6s %12s %14s %12s %12s\n' ranks requests events/s tokens/s itl_p99_ms
for np in 1 2 4; do
  out=$tmp/run-$np
  $mpirun -np "$np" "$bin" prof --base-url "$url" --api openai --model m --concurrency 64 \
    --duration "${secs}s" --input-length 16 --output-length 512 --quiet --no-progress \
    --grace-period 2s -o "$out" > /dev/null 2> "$out.log" || { cat "$out.log"; exit 1; }
  python3 - "$out" "$np" <<'PY'
import json, sys
d, np = sys.argv[1], sys.argv[2]
s = json.load(open(f"{d}/summary.json"))
events, first, last = 0, None, 0
for line in open(f"{d}/requests.jsonl"):
    r = json.loads(line)
    if r["warmup"] or r["t_send_s"] is None: continue
    events += r["events"]
    first = r["t_send_s"] if first is None else min(first, r["t_send_s"])
    last = max(last, r["t_end_s"] or 0)
rate = events / (last - first) if last > first else 0
t = s["throughput"]["output_tokens_per_s"] or 0
print(f"{np:<6} {s['run']['requests']['total']:>12} {rate:>14.0f} {t:>12.0f} "
      f"{s['metrics']['itl_ms']['p99'] or 0:>12.2f}")
PY
done

echo
echo "gather cost (synthetic records, 4 ranks on this host):"
$mpirun -np 4 "$build/mpi_gather" 1000000 32 "$tmp/gather"
