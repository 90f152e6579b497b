#pragma once
// What the scheduler is told of a parsed generation request: the one mapping used by the live
// simulator (generate_handler.cc) and by `servebench predict` (src/predict), so that both
// schedule the same request the same way. A field added to SchedRequest is filled here.
#include <cstdint>

#include "sim/api.h"
#include "sim/scheduler.h"

namespace sb::sim {

// The prompt's prefix blocks come from parse_generate (GenRequest::prefix_blocks, hashed from
// the prompt's text rather than the body's bytes).
inline SchedRequest sched_request_of(uint64_t id, const GenRequest& g) {
  SchedRequest r;
  r.id = id;
  r.prompt_tokens = g.prompt_tokens;
  r.max_new_tokens = g.max_new_tokens;
  r.output_tokens = g.output_tokens;
  r.prefix_blocks = g.prefix_blocks;
  r.priority = g.priority.value_or(0);
  return r;
}

}  // namespace sb::sim
