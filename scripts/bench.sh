#!/usr/bin/env bash
# `make bench`: runs every benchmark program in the given build folder and
# prints its figures. Benchmarks print numbers; they assert nothing.
set -euo pipefail
dir="${1:-build-release}"
for b in "$dir"/*_bench; do
  echo "== $(basename "$b") =="
  "$b"
  echo
done
# Non-streaming throughput against wrk on a private nginx (installs nginx and wrk when missing).
echo "== nonstream_bench.sh =="
bash bench/nonstream_bench.sh 5 2 "$dir/servebench"
# Summarizing 10 M records (writes a 6.9 GB requests.jsonl under $TMPDIR, then removes it).
echo "== records_bench.sh =="
bash bench/records_bench.sh 10000000 "$dir/servebench"
