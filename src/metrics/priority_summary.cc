#include "metrics/priority_summary.h"

#include <algorithm>
#include <map>
#include <utility>

namespace sb::metrics {

std::optional<PrioritySummary> summarize_priorities(
    const std::vector<const RequestRecord*>& measured, double window_s, const Slo& slo) {
  std::map<std::pair<int64_t, std::string>, std::vector<const RequestRecord*>> by_class;
  for (const RequestRecord* r : measured)
    if (!r->priority_class.empty()) by_class[{r->priority, r->priority_class}].push_back(r);
  if (by_class.empty()) return std::nullopt;
  PrioritySummary s;
  for (const auto& [key, recs] : by_class) {
    PriorityClassSummary& c = s.classes.emplace_back();
    c.priority = key.first;
    c.name = key.second;
    c.requests = static_cast<int64_t>(recs.size());
    std::vector<double> ttft, e2e;
    for (const RequestRecord* r : recs) {
      if (!slo.empty() && meets_slo(*r, slo)) ++c.good;
      if (!r->ok()) continue;
      ++c.ok;
      if (auto v = r->ttft_ms()) ttft.push_back(*v);
      if (auto v = r->e2e_ms()) e2e.push_back(*v);
    }
    c.ttft_ms = distribution_of(std::move(ttft));
    c.e2e_ms = distribution_of(std::move(e2e));
    if (slo.empty()) continue;
    if (window_s > 0) c.goodput_requests_per_s = static_cast<double>(c.good) / window_s;
    c.goodput_fraction = static_cast<double>(c.good) / static_cast<double>(c.requests);
  }
  if (!slo.empty() && s.classes.size() > 1) {
    double lo = 1, hi = 0;
    for (const auto& c : s.classes) {
      lo = std::min(lo, *c.goodput_fraction);
      hi = std::max(hi, *c.goodput_fraction);
    }
    if (hi > 0) s.fairness = lo / hi;
  }
  return s;
}

}  // namespace sb::metrics
