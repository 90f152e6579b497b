#pragma once
// Ground truth per request (--trace FILE, Server::trace()). Times are the server's
// steady_clock readings in nanoseconds since the steady_clock epoch, so a client in
// the same process or on the same host can compare them with its own readings.
// -1 marks an instant that never happened.
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"

namespace sb::sim {

// A steady_clock instant as a TraceRecord time: nanoseconds since the steady_clock epoch.
inline int64_t trace_ns(TimePoint t) {
  return t.time_since_epoch().count();
}
inline int64_t trace_now_ns() {
  return trace_ns(Clock::now());
}

struct TraceRecord {
  uint64_t seq = 0;        // server-side request number
  std::string request_id;  // x-request-id header ("" when absent)
  std::string api;         // tgi_generate, tgi_generate_stream, completions, chat
  bool stream = false;
  int64_t arrival_ns = -1;      // request fully read
  int64_t admission_ns = -1;    // admitted into the running batch (model time)
  int64_t first_token_ns = -1;  // first token's bytes written
  int64_t end_ns = -1;          // response finished (or the connection was dropped)
  int64_t reply_ns = -1;        // a whole (non-streamed) body built: where TGI's x-total-time ends
  std::vector<int64_t> token_ns;      // when each token's bytes were written (stream) or produced
  std::vector<int64_t> token_due_ns;  // when the model produced each token (step end)
  std::vector<int> batch_sizes;       // running batch size of each token's step
  int64_t prompt_tokens = 0;
  int64_t max_new_tokens = 0;
  int64_t output_tokens = 0;  // tokens sent
  int64_t cached_tokens = 0;  // prompt tokens the prefix cache served (SchedEvent)
  int status = 0;             // HTTP status sent (200 for streams, even with in-stream errors)
  std::string error;          // "" | overloaded | queue_full | validation | fault:... | client_gone
  std::string fault;          // the x-sim-fault header / drawn faults
};

// One JSON object, no trailing newline.
std::string to_json_line(const TraceRecord& r);

}  // namespace sb::sim
