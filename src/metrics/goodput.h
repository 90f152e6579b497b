#pragma once
// Goodput (docs/metrics.md): the requests per second that met every service-level objective given
// with --goodput (repeatable: "ttft:200", "tpot:50", "e2e:1000", bounds in milliseconds).
//
// A request meets the SLO when it is ok() and, for each bound given,
//   - ttft: ttft_ms() is defined and <= the bound;
//   - e2e:  e2e_ms() is defined and <= the bound;
//   - tpot: tpot_ms() is defined and <= the bound, or output_tokens <= 1 (tpot is undefined
//     for a one-token answer and counts as 0, i.e. meets any tpot bound). This follows vLLM
//     benchmarks/benchmark_serving.py calculate_metrics(): "if output_len <= 1, we regard tpot
//     as 0 for goodput" and `is_good_req = all(slo >= value)` (bounds are inclusive).
// With no bound given every ok request "meets" it; the run summary then reports goodput as
// undefined rather than repeating the throughput.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"

namespace sb::metrics {

struct Slo {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> e2e_ms;

  bool empty() const { return !ttft_ms && !tpot_ms && !e2e_ms; }
};

// Parses one --goodput value ("ttft:200", "tpot:50", "e2e:1000"; vLLM's "e2el" is accepted
// for e2e) into `slo`. Returns nullopt on success, otherwise a one-line message naming the
// flag, the bad value and the fix; `slo` is then unchanged. A metric given twice is an error.
std::optional<std::string> parse_goodput(std::string_view value, Slo& slo);

// All values of the repeatable flag; throws sb::usage_error (exit code 2) on the first bad one.
Slo parse_goodput_flags(const std::vector<std::string>& values);

// Whether `r` meets `slo`, as defined above.
bool meets_slo(const RequestRecord& r, const Slo& slo);

}  // namespace sb::metrics
