#!/usr/bin/env bash
# Non-streaming client throughput (issue 21 item 2, not in CI): servebench against wrk, side by
# side, on the same private nginx that answers POST /v1/completions with a fixed ~200-byte OpenAI
# completions JSON body over keep-alive. Each round runs first wrk (1 thread, 64 connections),
# then `servebench prof --api openai --no-stream --workers 1 --concurrency 64` (requests.jsonl
# written, as in a real run), both pinned to CPU 0 with nginx pinned to CPU 1, and prints per
# round: the requests/s of each, the ratio servebench/wrk (the issue's goal: >= 0.6), the
# client's CPU microseconds per request (user+sys, from /usr/bin/time) of each, and the size of
# servebench's requests.jsonl in bytes per request; a last line lists every round's ratio.
#
#   bench/nonstream_bench.sh [DURATION_S] [ROUNDS] [SERVEBENCH]
#       defaults: 5 s, 2 rounds, build/servebench (or $SERVEBENCH)
#   e.g. bench/nonstream_bench.sh 5 2 /tmp/copy/servebench
#
# Installs Debian's nginx, wrk and time when missing (sudo when not root). Needs 2 CPUs (taskset
# -c 0 and 1); on a busy machine compare only the ratios of one run, never absolute numbers.
set -euo pipefail
duration_s="${1:-5}"
rounds="${2:-2}"
bin="${3:-${SERVEBENCH:-build/servebench}}"
concurrency="${NONSTREAM_CONCURRENCY:-64}"
client_cpu="${NONSTREAM_CLIENT_CPU:-0}"
server_cpu="${NONSTREAM_SERVER_CPU:-1}"
[ -x "$bin" ] || { echo "nonstream_bench: $bin not found (build first: make build)" >&2; exit 2; }

# Debian packages, installed only when missing (the way scripts/install-deps.sh checks).
missing=()
for p in nginx wrk time curl python3; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "nonstream_bench: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/servebench-nonstream.XXXXXX")"
nginx_pid=""
cleanup() {
  if [ -n "$nginx_pid" ]; then
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# A free loopback port (the kernel picks one; nginx binds it a moment later).
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

# The server's answer: an OpenAI completions body of about 200 bytes (no single quotes: it sits
# in nginx's single-quoted string).
reply='{"id":"cmpl-b","object":"text_completion","created":1700000000,"model":"m","choices":[{"index":0,"text":" Hello there.","finish_reason":"length"}],"usage":{"prompt_tokens":256,"completion_tokens":128,"total_tokens":384}}'
mkdir -p "$tmp/nginx/client_body" "$tmp/nginx/proxy" "$tmp/nginx/fastcgi" "$tmp/nginx/uwsgi" "$tmp/nginx/scgi"
cat > "$tmp/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/client_body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  keepalive_timeout 300s;
  keepalive_requests 1000000;
  client_body_buffer_size 64k;
  server {
    listen 127.0.0.1:$port backlog=4096;
    location /v1/completions {
      default_type application/json;
      return 200 '$reply';
    }
  }
}
EOF
taskset -c "$server_cpu" "$nginx_bin" -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" \
  > "$tmp/nginx/stdout" 2>&1 &
nginx_pid=$!
url="http://127.0.0.1:$port"
code=""
for _ in $(seq 100); do
  code="$(curl -s -o "$tmp/probe.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d '{"prompt":"hi","max_tokens":1,"stream":false}' "$url/v1/completions" || true)"
  [ "$code" = "200" ] && break
  kill -0 "$nginx_pid" 2>/dev/null || break
  sleep 0.1
done
if [ "$code" != "200" ]; then
  echo "nonstream_bench: nginx did not answer 200 on $url/v1/completions (got '$code')" >&2
  cat "$tmp/nginx/stdout" "$tmp/nginx/error.log" >&2 2>/dev/null || true
  exit 1
fi

# wrk's request: a POST with a body as long as servebench's default one (a 256-token synthetic
# prompt, 1069 bytes) and the same headers.
python3 - "$tmp/post.lua" <<'PY'
import json, sys
words = ("This empty window ignored every proud city along one early neighbor. Another steady "
         "kitchen followed this child. Our brave island described that quiet library. ")
prompt = "Request 0: " + (words * 20)
body = json.dumps({"max_tokens": 128, "prompt": prompt, "stream": False}, separators=(",", ":"))
body = json.dumps({"max_tokens": 128, "prompt": prompt[: len(prompt) - (len(body) - 1069)],
                   "stream": False}, separators=(",", ":"))
with open(sys.argv[1], "w") as f:
    f.write('wrk.method = "POST"\n')
    f.write("wrk.body = %s\n" % json.dumps(body))
    f.write('wrk.headers["Content-Type"] = "application/json"\n')
    f.write('wrk.headers["Accept"] = "application/json"\n')
    f.write('wrk.headers["User-Agent"] = "servebench/0.1.0"\n')
    f.write('wrk.headers["x-request-id"] = "servebench-0"\n')
PY

echo "nonstream_bench: nginx on $url (CPU $server_cpu), clients on CPU $client_cpu, ${duration_s}s x $rounds rounds, concurrency $concurrency, reply ${#reply} B"
echo "nonstream_bench: servebench = $bin"
ratios=()
for k in $(seq "$rounds"); do
  # a. wrk
  taskset -c "$client_cpu" /usr/bin/time -f "%U %S" -o "$tmp/wrk$k.time" \
    wrk -t1 -c"$concurrency" -d"${duration_s}s" -s "$tmp/post.lua" "$url/v1/completions" > "$tmp/wrk$k.out" 2>&1
  wrk_rps="$(awk '/^Requests\/sec:/ {print $2}' "$tmp/wrk$k.out")"
  wrk_n="$(awk '/requests in/ {print $1}' "$tmp/wrk$k.out")"
  wrk_err="$(awk '/Non-2xx|Socket errors/ {printf "%s ", $0}' "$tmp/wrk$k.out")"
  [ -n "$wrk_rps" ] || { echo "nonstream_bench: wrk failed:" >&2; cat "$tmp/wrk$k.out" >&2; exit 1; }
  read -r wrk_u wrk_s < <(tail -n1 "$tmp/wrk$k.time")

  # b. servebench
  rm -rf "$tmp/run$k"
  taskset -c "$client_cpu" /usr/bin/time -f "%U %S %e" -o "$tmp/sb$k.time" \
    "$bin" prof --base-url "$url" --api openai --no-stream --workers 1 --concurrency "$concurrency" \
    --duration "${duration_s}s" --no-progress -q -o "$tmp/run$k" --overwrite \
    --gpu-telemetry off > "$tmp/sb$k.out" 2>&1 \
    || { echo "nonstream_bench: servebench failed:" >&2; cat "$tmp/sb$k.out" >&2; exit 1; }
  read -r sb_u sb_s sb_wall < <(tail -n1 "$tmp/sb$k.time")
  read -r sb_rps sb_n sb_failed < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["run"]["requests"]
print(d["throughput"]["requests_per_s"], r["total"], r["failed"])' "$tmp/run$k/summary.json")
  jsonl_bytes="$(stat -c %s "$tmp/run$k/requests.jsonl")"

  python3 - "$k" "$wrk_rps" "$wrk_n" "$wrk_u" "$wrk_s" "$sb_rps" "$sb_n" "$sb_failed" "$sb_u" "$sb_s" \
    "$jsonl_bytes" "$wrk_err" "$sb_wall" "$duration_s" <<'PY'
import sys
k, wrk_rps, wrk_n, wrk_u, wrk_s, sb_rps, sb_n, sb_failed, sb_u, sb_s, jb = sys.argv[1:12]
wrk_err = sys.argv[12].strip()
sb_wall, dur = float(sys.argv[13]), float(sys.argv[14])
wrk_rps, sb_rps = float(wrk_rps), float(sb_rps)
wrk_n, sb_n, jb = int(wrk_n), int(sb_n), int(jb)
wrk_cpu = (float(wrk_u) + float(wrk_s)) * 1e6 / max(wrk_n, 1)
sb_cpu = (float(sb_u) + float(sb_s)) * 1e6 / max(sb_n, 1)
print(f"round {k}: wrk {wrk_rps:,.0f} req/s ({wrk_n} requests{', ' + wrk_err if wrk_err else ''}) | "
      f"servebench {sb_rps:,.0f} req/s ({sb_n} requests, {sb_failed} failed) | ratio {sb_rps / wrk_rps:.3f}")
print(f"  client CPU per request: wrk {wrk_cpu:.2f} us (user {wrk_u} s, sys {wrk_s} s) | "
      f"servebench {sb_cpu:.2f} us (user {sb_u} s, sys {sb_s} s) | servebench/wrk {sb_cpu / wrk_cpu:.2f}x")
print(f"  requests.jsonl: {jb} bytes, {jb / max(sb_n, 1):.0f} bytes/request; servebench wall {sb_wall:.2f} s "
      f"for a {dur:g} s run (its CPU above includes start-up and the summary after the run)")
PY
  ratios+=("$(python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.3f}")' "$sb_rps" "$wrk_rps")")
done
echo "ratios servebench/wrk (goal >= 0.6): ${ratios[*]}"
