#include "report/load_rules.h"

namespace sb::report {

bool stable_load(int64_t measured_requests, bool slos_met, double error_rate,
                 double max_error_rate) {
  return measured_requests > 0 && slos_met && error_rate <= max_error_rate;
}

bool saturated(double prev_qps, double prev_latency_ms, double qps, double latency_ms,
               const PlateauRule& rule) {
  const bool flat = qps < prev_qps * (1 + rule.min_gain);
  const bool climbing = latency_ms > prev_latency_ms * (1 + rule.latency_climb);
  return flat && climbing;
}

bool sustained_rate(bool closed_loop, int64_t measured_requests, double concurrency) {
  return !closed_loop || static_cast<double>(measured_requests) >=
                             static_cast<double>(kMinRequestsPerClient) * concurrency;
}

}  // namespace sb::report
