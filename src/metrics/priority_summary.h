#pragma once
// Per priority class (--priority-mix, load/priority_mix.h; docs/metrics.md): what each class
// of a run got, and how evenly the classes met the run's SLO.
//
// Over the measured requests (warm-up excluded) that carry a priority class
// (RequestRecord::priority_class non-empty):
//   requests, ok             the class's measured requests, and those that succeeded;
//   ttft_ms, e2e_ms          over its ok requests where defined (as the run's);
//   goodput                  the run's --goodput SLO (goodput.h "meets"): good = its requests
//                            meeting it, requests_per_s = good / the run's measured window,
//                            fraction = good / requests; undefined without an SLO;
//   fairness                 min over the classes of goodput.fraction / max over them: 1 when
//                            every class met the SLO as often, toward 0 as one class is served
//                            worse; undefined without an SLO, with one class, or when no class
//                            met it. (servebench has no per-class SLO: one SLO judges all.)
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/distribution.h"
#include "metrics/goodput.h"
#include "metrics/request_record.h"

namespace sb::metrics {

struct PriorityClassSummary {
  std::string name;
  int64_t priority = 0;  // lower = served earlier
  int64_t requests = 0;
  int64_t ok = 0;
  Distribution ttft_ms, e2e_ms;
  int64_t good = 0;
  std::optional<double> goodput_requests_per_s;
  std::optional<double> goodput_fraction;
};

struct PrioritySummary {
  std::vector<PriorityClassSummary> classes;  // most urgent first (priority, then name)
  std::optional<double> fairness;
};

// The same one measured record at a time (run_accumulator.h): per class its counters and its
// TTFT / e2e columns, the records themselves not kept.
class PriorityAccumulator {
 public:
  explicit PriorityAccumulator(Slo slo) : slo_(std::move(slo)) {}
  void add(const RequestRecord& r);
  // As summarize_priorities; call once.
  std::optional<PrioritySummary> finish(double window_s);

 private:
  struct Class {
    PriorityClassSummary summary;
    std::vector<double> ttft, e2e;
  };
  Slo slo_;
  std::map<std::pair<int64_t, std::string>, Class> classes_;
};

// Nullopt when no measured record carries a priority class. `window_s`: the run's measured
// window (<= 0: unknown); `slo`: the run's SLO (empty: no goodput).
std::optional<PrioritySummary> summarize_priorities(
    const std::vector<const RequestRecord*>& measured, double window_s, const Slo& slo);

}  // namespace sb::metrics
