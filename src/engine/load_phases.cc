#include "engine/load_phases.h"

#include <algorithm>
#include <cmath>

#include "load/arrival_schedule.h"

namespace sb::engine {

int64_t max_in_flight(const LoadConfig& l) {
  if (l.mode == LoadMode::closed) return l.concurrency;
  return l.max_concurrency;
}

int64_t warmup_slots(const LoadConfig& l) {
  int64_t slots = max_in_flight(l);
  if (slots <= 0)
    slots = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(l.request_rate)), 1, 64);
  return std::min(slots, l.warmup);
}

load::ScheduleConfig schedule_config(const LoadConfig& l) {
  return load::ScheduleConfig{.rate_per_s = l.request_rate,
                              .arrival = l.arrival,
                              .burstiness = l.burstiness,
                              .seed = l.seed,
                              .pattern = l.rate_pattern};
}

std::vector<Nanos> measured_schedule(const LoadConfig& l) {
  if (l.mode != LoadMode::open) return {};
  if (l.trace_offsets) {
    const std::vector<Nanos>& t = *l.trace_offsets;
    const size_t n =
        l.num_requests > 0 ? std::min(t.size(), static_cast<size_t>(l.num_requests)) : t.size();
    return {t.begin(), t.begin() + static_cast<std::ptrdiff_t>(n)};
  }
  const load::ScheduleConfig c = schedule_config(l);
  const size_t n = l.num_requests > 0
                       ? static_cast<size_t>(l.num_requests)
                       : static_cast<size_t>(std::ceil(load::expected_requests(c, l.duration))) + 1;
  return load::make_schedule(c, n);
}

}  // namespace sb::engine
