#pragma once
// `servebench summarize DIR`: rebuilds DIR/summary.json and DIR/summary.csv from
// DIR/requests.jsonl alone, e.g. after the run was killed (kill -9, OOM, power to
// the client lost) before it wrote its summary.
//
// Contract:
//   - Every whole line of requests.jsonl is one request (report/request_jsonl.h).
//     A last line that does not parse (the process died while writing it) is
//     skipped with a warning; any other line that does not parse is an error
//     naming its line number (exit code 2).
//   - What only the run's configuration knows (config, host, start time, load
//     mode, concurrency, target rate, SLOs, bucket interval) comes from the old
//     DIR/summary.json when one is there; otherwise defaults: closed loop of
//     unknown concurrency (0), no SLO, 1000 ms buckets, duration = the last
//     request's end, and the run is marked interrupted (it never wrote a summary).
//   - The summary's `telemetry` block (it does not depend on the requests) is the old
//     summary.json's, unchanged; without one, it is rebuilt from DIR/telemetry.jsonl when
//     that file is there (series statistics only: telemetry/telemetry_log_read.h);
//     otherwise the summary has none.
//   - --goodput and --bucket-interval override those values.
//   - The files are replaced atomically (report/run_outputs.h).
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::cli {

std::function<int()> add_summarize_command(CLI::App& root);

}  // namespace sb::cli
