#!/usr/bin/env bash
# Records at scale (issue 21 item 4, not in CI): writes a requests.jsonl of N records (unique
# ids in order, varied times, as a long `prof` run writes them: non-streamed, 691 bytes each,
# or streamed with TOKENS inter-token gaps each) and times `servebench summarize`, then
# `servebench report` and `servebench compare` (the run against itself) on it: wall, user and system seconds, the largest resident set, and per
# record. The targets are 10 M records in <= 30 s and <= 2 GiB.
#
#   bench/records_bench.sh [RECORDS] [SERVEBENCH] [TOKENS]
#       defaults: 10000000 records (6.9 GB on disk under $TMPDIR), build/servebench, 0 tokens
#
# Needs python3 and GNU time (/usr/bin/time; Debian's `time` package).
set -euo pipefail
records="${1:-10000000}"
bin="${2:-${SERVEBENCH:-build/servebench}}"
tokens="${3:-0}"
[ -x "$bin" ] || { echo "records_bench: $bin not found (build first: make build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "records_bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/servebench-records.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

python3 - "$records" "$tmp/requests.jsonl" "$tokens" <<'PY'
import sys
n, path, tokens = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
# Streamed: the gaps vary (0.5 .. 50.4 ms) from one request to the next; the same line shape.
itls = ["[" + ",".join(f"{0.5 + ((k * 131 + j * 17) % 500) / 10:.3f}" for j in range(tokens)) + "]"
        for k in range(97)] if tokens > 0 else ["[]"]
tail = ('"input_tokens":256,"output_tokens":128,"output_tokens_source":"usage",'
        '"output_tokens_alt":4,"output_tokens_alt_source":"estimate","reasoning_tokens":null,'
        '"reasoning_tokens_source":null,"reasoning_ms":null,"conn_reused":true,'
        '"pool_wait_ms":0.181444,"connect_ms":null,"tls_ms":null,"write_ms":0.028851,')
with open(path, "w", buffering=1 << 24) as f:
    for i in range(n):
        t = i * 2.5e-5  # 40 k requests/s
        ms = 0.1 + (i * 7919 % 1000) / 1000.0  # e2e spread over 0.1..1.1 ms
        f.write(f'{{"id":{i},"class":"default","warmup":false,"ok":true,"status":200,'
                f'"error_class":"ok","error":"","t_sched_s":{t:.9f},"t_send_s":{t:.9f},'
                f'"t_end_s":{t + ms / 1000:.9f},"ttft_ms":{ms:.6f},"ttft_content_ms":{ms:.6f},'
                f'"tpot_ms":0,"e2e_ms":{ms:.6f},"scheduled_e2e_ms":{ms:.6f},'
                f'"dispatch_delay_ms":0,{tail}"ttfb_ms":{ms:.6f},"headers_ms":{ms:.6f},'
                f'"read_lag_max_ms":0.01,"events":{tokens + 1},"itl_ms":{itls[i % len(itls)]}}}\n')
PY
bytes="$(stat -c %s "$tmp/requests.jsonl")"
echo "records_bench: $records records, $tokens gaps each, $bytes bytes ($(( bytes / records )) per record)"
# One command timed: wall, user, system, max RSS, per record.
timed() {
  local name="$1"; shift
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr" \
    || { cat "$tmp/stderr" >&2; exit 1; }
  read -r wall user sys rss_kb < "$tmp/time"
  python3 - "$name" "$records" "$wall" "$user" "$sys" "$rss_kb" <<'PY'
import sys
name = sys.argv[1]; n = int(sys.argv[2]); wall, user, sys_s = map(float, sys.argv[3:6])
rss = int(sys.argv[6]) * 1024
print(f"{name}: {wall:.1f} s wall (user {user:.1f} s, system {sys_s:.1f} s), max RSS "
      f"{rss / 2**30:.2f} GiB: {wall / n * 1e6:.2f} us and {rss / n:.0f} bytes per record "
      f"(targets at 10 M: <= 30 s, <= 2 GiB)")
PY
}
# summarize rebuilds summary.json from the log; report and compare then read both (their
# tables, CDFs, intervals and bootstrap come from the records: report/request_samples.h).
timed summarize "$bin" summarize "$tmp" -q
timed report "$bin" report "$tmp" -o "$tmp/report.html"
timed compare "$bin" compare "$tmp" "$tmp"
