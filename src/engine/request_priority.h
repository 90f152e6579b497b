#pragma once
// --priority-mix: a request's class, drawn from the run's seed and the request's id, set on
// its record. The live engine (worker.cc) and `servebench predict` (virtual_run.cc) both call
// this, so that the same ids get the same classes in both.
#include <cstdint>
#include <optional>

#include "config/engine_config.h"
#include "load/priority_mix.h"
#include "metrics/request_record.h"

namespace sb::engine {

// Sets r.priority_class and r.priority for request `id`; returns the priority to send in the
// body, nullopt when the run has no priority classes (the record's fields keep their defaults).
inline std::optional<int64_t> assign_priority(const LoadConfig& load, uint64_t id,
                                              metrics::RequestRecord& r) {
  const load::PriorityClass* c = load::priority_of(load.priority_mix, load.seed, id);
  if (!c) return std::nullopt;
  r.priority_class = c->name;
  r.priority = c->priority;
  return c->priority;
}

}  // namespace sb::engine
