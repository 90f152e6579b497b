#pragma once
// Saturation search (`sweep --until-saturation`, plan stage option), pure: it only sees
// what `measure(level)` returns, so it is tested with a fake measurement.
//
// Concurrency search: levels start, start x factor, ... (or the explicit `levels`), up to
// max_level. After each level L_i (i > 0) with throughput q_i and latency t_i:
//   - errors:  error_rate_i > max_error_rate                       -> stop ("errors");
//   - slo:     !slo_ok_i                                           -> stop ("slo");
//   - plateau: q_i < q_{i-1} x (1 + min_gain) and t_i > t_{i-1} x (1 + latency_climb)
//              -> stop ("saturated"): the knee is L_{i-1}, the last level whose extra load
//              still bought throughput;
//   - a level that failed outright (no measurement) stops the search ("failed").
// Running out of levels stops with "max_level" (no knee found).
// A level that is not `sustained` (report/load_rules.h sustained_rate: fewer than 2 requests
// per client, one wave) still stops the search on errors or SLOs, but its throughput is no
// rate: it is never the peak and the plateau test skips it (a sustained level is compared
// with the last sustained level before it). Such levels are listed in `one_wave`.
// peak QPS = the largest q over every measured, sustained level, at its level (0 when none);
// max stable level = the highest measured level with slo_ok and error_rate <= max_error_rate
// (unset when none).
//
// Rate search (bisection against the SLOs): measure `high`; if stable it is the answer.
// Otherwise measure `low` (must be stable, else no answer); then `steps` times: mid =
// (lo + hi) / 2, stable -> lo = mid, else hi = mid. Answer: the last stable rate lo.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sb::plan {

struct LevelMeasure {
  double level = 0;       // concurrency or request rate
  bool failed = false;    // the run did not produce a measurement
  double qps = 0;         // ok requests per second
  double latency_ms = 0;  // the latency that must climb (the caller's choice: e2e p50)
  double error_rate = 0;  // failed / total
  bool slo_ok = true;     // every SLO met (see slo_met in plan_runner)
  bool sustained = true;  // its qps is a rate (report/load_rules.h sustained_rate)
  std::string folder;     // where the run's files are (for the index)
};

struct SaturationOptions {
  double min_gain = 0.05;       // throughput gain below this fraction counts as flat
  double latency_climb = 0.10;  // latency must rise by more than this fraction
  double max_error_rate = 0.05;
  double factor = 2.0;
  double max_level = 512;
  std::vector<double> levels;  // explicit candidate levels (ascending); empty: geometric
};

struct SaturationResult {
  std::vector<LevelMeasure> points;  // in the order measured
  std::optional<double> knee;
  double peak_qps = 0;
  double peak_level = 0;
  std::optional<double> max_stable;
  std::vector<double> one_wave;  // measured levels that were not sustained, ascending
  std::string stop_reason;       // saturated | slo | errors | failed | max_level | interrupted
};

// `measure` returns nullopt to abort (interrupted).
using MeasureFn = std::function<std::optional<LevelMeasure>(double level)>;

SaturationResult search_saturation(double start, const SaturationOptions& options,
                                   const MeasureFn& measure);

struct RateSearchOptions {
  double low = 0;
  double high = 0;
  int steps = 4;
  double max_error_rate = 0.05;
};

struct RateSearchResult {
  std::vector<LevelMeasure> points;
  std::optional<double> max_stable_rate;
  std::string stop_reason;  // high_ok | bisected | low_fails | failed | interrupted
};

RateSearchResult bisect_rate(const RateSearchOptions& options, const MeasureFn& measure);

}  // namespace sb::plan
