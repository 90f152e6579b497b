#pragma once
// The definitions of a "stable" and a "saturated" load level, shared by the report (run
// analysis, study tables, recommendation), the plan index's comparison table and the plan
// runner's saturation search (src/plan/saturation.cc), so that every table, search and
// sentence names the same levels.
#include <cstdint>

namespace sb::report {

// Defaults used wherever no limit is given (the plan's defaults.max_error_rate; the study's
// minimum sample size of a reported cell).
inline constexpr double kDefaultMaxErrorRate = 0.05;
inline constexpr int64_t kDefaultMinRequests = 30;

// A load level is stable when it was measured (at least one measured request), met every SLO
// and its error rate (failed / measured requests, a fraction) is at most max_error_rate.
bool stable_load(int64_t measured_requests, bool slos_met, double error_rate,
                 double max_error_rate);

// Knee detection: a level is saturated when its throughput gained less than min_gain (a
// fraction) over the previous level's while its latency rose by more than latency_climb;
// the previous level is then the knee (the last load that still bought throughput).
struct PlateauRule {
  double min_gain = 0.05;
  double latency_climb = 0.10;
};
bool saturated(double prev_qps, double prev_latency_ms, double qps, double latency_ms,
               const PlateauRule& rule);

// A closed-loop level's throughput is a rate the server sustains only when each client sent at
// least kMinRequestsPerClient requests (measured >= that x concurrency); with fewer it timed
// one wave of requests sent together (a batch), whose QPS is never a peak nor part of a knee.
// Open-loop levels are always sustained.
inline constexpr int64_t kMinRequestsPerClient = 2;
bool sustained_rate(bool closed_loop, int64_t measured_requests, double concurrency);

}  // namespace sb::report
