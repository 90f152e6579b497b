#include "engine/phase_clock.h"

#include <algorithm>

namespace sb::engine {

bool PhaseStopper::cancel_now(TimePoint now, bool interrupted) {
  const bool stopping = interrupted || now >= stop_at_;
  if (stopping && !cancel_at_) cancel_at_ = (interrupted ? now : std::max(now, stop_at_)) + grace_;
  if (!cancel_at_ || cancelled_ || now < *cancel_at_) return false;
  cancelled_ = true;
  return true;
}

OpenLoopShare::OpenLoopShare(const Spec& spec)
    : spec_(spec),
      k_(static_cast<uint64_t>(spec.shard) +
         static_cast<uint64_t>(spec.worker) * static_cast<uint64_t>(spec.shards)),
      step_(static_cast<uint64_t>(spec.workers) * static_cast<uint64_t>(spec.shards)) {}

std::optional<OpenLoopSend> OpenLoopShare::next() {
  if (!spec_.schedule || k_ >= spec_.schedule->size()) return std::nullopt;
  OpenLoopSend s{k_, spec_.first_index + k_, spec_.start + (*spec_.schedule)[k_]};
  if (s.id >= spec_.end_index || s.t_sched >= spec_.stop_at) {
    k_ = spec_.schedule->size();  // done: later entries are later still
    return std::nullopt;
  }
  k_ += step_;
  return s;
}

}  // namespace sb::engine
