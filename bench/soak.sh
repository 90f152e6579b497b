#!/usr/bin/env bash
# Soak benchmark (issue 7, not in CI): servebench against the simulator, as two
# processes, with a 1% fault rate and 500 concurrent streams for a while; prints
# the requests done, the errors by class, the client's RSS once the load is
# steady and at the end, the open descriptors of client and simulator at the same two
# moments, and fails when the RSS grew by 5% or more or the client's descriptors grew by more
# than its streams' worth of churn (a leak grows without bound; reconnects after faults do not).
#
#   bench/soak.sh [DURATION_S] [BUILD_DIR]       (defaults: 600 s, build)
#   SOAK_CONCURRENCY=500 SOAK_FAULTS=... SOAK_TIME_SCALE=20 bench/soak.sh 120
set -euo pipefail
duration_s="${1:-600}"
build="${2:-build}"
bin="$build/servebench"
concurrency="${SOAK_CONCURRENCY:-500}"
# 1% of requests draw a fault, spread over five kinds.
faults="${SOAK_FAULTS:-503=0.002,429=0.002,reset=0.002,disconnect=0.002,malformed=0.002}"
time_scale="${SOAK_TIME_SCALE:-20}"  # instant preset: 20 ms decode steps
max_growth_pct="${SOAK_MAX_RSS_GROWTH_PCT:-5}"
[ -x "$bin" ] || { echo "soak: $bin not found (build first: make build)" >&2; exit 2; }
out="$(mktemp -d "${TMPDIR:-/tmp}/servebench-soak.XXXXXX")"
# Steady state: once every stream has done a few requests (10% of the run, 10..60 s).
steady_s=$(( duration_s / 10 )); (( steady_s < 10 )) && steady_s=10; (( steady_s > 60 )) && steady_s=60

sim_pid=""; prof_pid=""
cleanup() {
  [ -n "$prof_pid" ] && kill "$prof_pid" 2>/dev/null || true
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# The simulator, in its own process so that the client's RSS is the client's alone.
"$bin" sim --preset instant --port 0 --time-scale "$time_scale" --fault-rate "$faults" \
  > "$out/sim.out" 2> "$out/sim.err" &
sim_pid=$!
for _ in $(seq 100); do [ -s "$out/sim.out" ] && break; sleep 0.1; done
url="$(head -n1 "$out/sim.out")"
[[ "$url" == http://* ]] || { echo "soak: the simulator did not start: $(cat "$out/sim.err")" >&2; exit 1; }

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

echo "soak: ${duration_s}s, $concurrency streams, faults $faults, simulator $url, results in $out"
"$bin" prof --base-url "$url" --api openai-chat --model soak --concurrency "$concurrency" \
  --duration "${duration_s}s" --input-length 128 --output-length 64 --no-progress -q \
  --first-token-timeout 30s --idle-timeout 30s --timeout 120s -o "$out/run" > "$out/prof.out" 2>&1 &
prof_pid=$!
sleep "$steady_s"
rss_start=$(rss_kb "$prof_pid"); fd_start=$(fds "$prof_pid"); sim_fd_start=$(fds "$sim_pid")
sleep $(( duration_s - steady_s - 1 > 0 ? duration_s - steady_s - 1 : 0 ))
rss_end=$(rss_kb "$prof_pid"); fd_end=$(fds "$prof_pid"); sim_fd_end=$(fds "$sim_pid")
rc=0; wait "$prof_pid" || rc=$?
prof_pid=""
kill "$sim_pid" 2>/dev/null || true

python3 - "$out/run/summary.json" "$rss_start" "$rss_end" "$max_growth_pct" "$rc" \
  "$fd_start" "$fd_end" "$sim_fd_start" "$sim_fd_end" "$concurrency" <<'PY'
import json, sys
summary, rss_start, rss_end, max_growth, rc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
fd_start, fd_end, sim_fd_start, sim_fd_end, streams = (int(x) for x in sys.argv[6:11])
s = json.load(open(summary))
req = s["run"]["requests"]
print(f"requests done:   {req['total']} (ok {req['ok']}, failed {req['failed']}), "
      f"{s['throughput']['requests_per_s'] or 0:.1f} req/s, exit code {rc}")
print("errors by class: " + (", ".join(f"{k} {v}" for k, v in sorted(s["errors"].items())) or "none"))
ttft = s["metrics"]["ttft_ms"]
if ttft["count"]:
    print(f"ttft ms:         p50 {ttft['p50']:.1f}  p99 {ttft['p99']:.1f}  max {ttft['max']:.1f}")
growth = 100.0 * (rss_end - rss_start) / max(rss_start, 1)
print(f"client RSS:      {rss_start / 1024:.1f} MiB at steady state, {rss_end / 1024:.1f} MiB at the end "
      f"({growth:+.2f}%, limit +{max_growth:g}%)")
print(f"open fds:        client {fd_start} at steady state, {fd_end} at the end; "
      f"simulator {sim_fd_start}, {sim_fd_end}")
if fd_end - fd_start > streams // 10 + 16:
    print("soak: FAIL: the client's open descriptors grew"); sys.exit(1)
if rss_start == 0 or rss_end == 0:
    print("soak: FAIL: could not read the client's RSS"); sys.exit(1)
if growth >= max_growth:
    print("soak: FAIL: client RSS grew too much"); sys.exit(1)
if rc not in (0, 4):
    print(f"soak: FAIL: servebench exited {rc}"); sys.exit(1)
print("soak: ok")
PY
