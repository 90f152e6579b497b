#pragma once
// What the scheduler is told of a parsed generation request: the one mapping used by the live
// simulator (generate_handler.cc) and by `servebench predict` (src/predict), so that both
// schedule the same request the same way. A field added to SchedRequest is filled here.
#include <cstdint>
#include <string_view>

#include "sim/api.h"
#include "sim/prefix_cache.h"
#include "sim/scheduler.h"

namespace sb::sim {

// `body`: the request's raw body (its leading bytes name the prompt's prefix blocks).
inline SchedRequest sched_request_of(uint64_t id, const GenRequest& g, const SimConfig& c,
                                     std::string_view body) {
  SchedRequest r;
  r.id = id;
  r.prompt_tokens = g.prompt_tokens;
  r.max_new_tokens = g.max_new_tokens;
  r.output_tokens = g.output_tokens;
  r.prefix_blocks = prompt_prefix_blocks(c, body, g.prompt_tokens);
  return r;
}

}  // namespace sb::sim
