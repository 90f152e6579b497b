#include "metrics/priority_summary.h"

#include <algorithm>

namespace sb::metrics {

void PriorityAccumulator::add(const RequestRecord& r) {
  if (r.priority_class.empty()) return;
  auto it = classes_.find({r.priority, r.priority_class});
  if (it == classes_.end())
    it = classes_.emplace(std::pair{r.priority, r.priority_class}, Class{}).first;
  Class& c = it->second;
  ++c.summary.requests;
  if (!slo_.empty() && meets_slo(r, slo_)) ++c.summary.good;
  if (!r.ok()) return;
  ++c.summary.ok;
  if (auto v = r.ttft_ms()) c.ttft.push_back(*v);
  if (auto v = r.e2e_ms()) c.e2e.push_back(*v);
}

std::optional<PrioritySummary> PriorityAccumulator::finish(double window_s) {
  if (classes_.empty()) return std::nullopt;
  PrioritySummary s;
  for (auto& [key, cls] : classes_) {
    PriorityClassSummary& c = s.classes.emplace_back(std::move(cls.summary));
    c.priority = key.first;
    c.name = key.second;
    c.ttft_ms = distribution_of(std::move(cls.ttft));
    c.e2e_ms = distribution_of(std::move(cls.e2e));
    if (slo_.empty()) continue;
    if (window_s > 0) c.goodput_requests_per_s = static_cast<double>(c.good) / window_s;
    c.goodput_fraction = static_cast<double>(c.good) / static_cast<double>(c.requests);
  }
  if (!slo_.empty() && s.classes.size() > 1) {
    double lo = 1, hi = 0;
    for (const auto& c : s.classes) {
      lo = std::min(lo, *c.goodput_fraction);
      hi = std::max(hi, *c.goodput_fraction);
    }
    if (hi > 0) s.fairness = lo / hi;
  }
  return s;
}

std::optional<PrioritySummary> summarize_priorities(
    const std::vector<const RequestRecord*>& measured, double window_s, const Slo& slo) {
  PriorityAccumulator a(slo);
  for (const RequestRecord* r : measured) a.add(*r);
  return a.finish(window_s);
}

}  // namespace sb::metrics
