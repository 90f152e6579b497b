#pragma once
// Prometheus text-format (0.0.4) rendering of one histogram, for the live endpoint
// (telemetry/live_metrics.cc); the simulator's page is data (common/prom_page.h).
//
// Appends, for NAME with LABELS:
//   NAME_bucket{LABELS,le="B"} C      for each bound B, C = observations <= B (cumulative)
//   NAME_bucket{LABELS,le="+Inf"} N
//   NAME_sum{LABELS} S
//   NAME_count{LABELS} N              N = every observation (the sum of `counts`)
// `labels` is already rendered without braces (`a="x",b="y"`, values escaped), or empty (then
// the _sum and _count lines have no braces). Bounds and the sum are printed as fmt's "{}"
// (shortest round trip).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace sb {

// `counts`: per bucket, non-cumulative, bounds.size() + 1 of them (the last is above every
// bound); a shorter span counts the missing buckets as 0.
void append_prom_histogram(std::string& out, std::string_view name, std::string_view labels,
                           std::span<const double> bounds, std::span<const uint64_t> counts,
                           double sum);

}  // namespace sb
