#pragma once
// summary.csv: one row per run, for plotting throughput and latency against load (a sweep
// appends one row per stage under one header). Columns, in order:
//   mode, concurrency, target_rate, requests, ok, failed,
//   requests_per_s, output_tokens_per_s,
//   {e2e,ttft,tpot,itl}_{mean,p50,p90,p99}_ms,
//   error_rate (failed / requests), goodput_requests_per_s, goodput_fraction,
//   abandonment_rate (abandoned / requests; empty without --abandon-after),
//   items_per_s (embeddings / rerank items of ok requests per second; empty otherwise)
// An undefined value is an empty cell. Numbers use the shortest exact decimal form.
#include <string>

#include "metrics/run_summary.h"

namespace sb::results {

std::string summary_csv_header();                                 // ends with '\n'
std::string summary_csv_row(const metrics::RunSummary& summary);  // ends with '\n'

}  // namespace sb::results
