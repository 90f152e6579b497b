#pragma once
// Fault injection. Per request through the `x-sim-fault` header, comma-separated:
//   status=CODE            answer CODE at once with the API's error body (429, 500, 503, 408, 422,
//   ...) disconnect_after=N     after N tokens, close the connection (FIN) without the final event
//   reset_after=N          after N tokens, reset the connection (RST)
//   stall_ms=N             pause the stream N ms (wall clock) after stall_after tokens (default 1)
//   stall_after=N
//   malformed_after=N      after N tokens, emit one broken JSON event, then go on
//   slow_first_byte_ms=N   wait N ms (wall clock) before the response's first byte
//   never_respond=1        read the request, never answer (until the client or server closes)
// Globally, --fault-rate draws one of the same faults per request with a seeded RNG.
// Fault delays are wall-clock milliseconds: time_scale does not apply to them.
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

struct Faults {
  int status = 0;  // 0: none
  std::optional<int64_t> disconnect_after;
  std::optional<int64_t> reset_after;
  int64_t stall_ms = 0;
  int64_t stall_after = 1;
  std::optional<int64_t> malformed_after;
  int64_t slow_first_byte_ms = 0;
  bool never_respond = false;
  bool any() const {
    return status || disconnect_after || reset_after || stall_ms || malformed_after ||
           slow_first_byte_ms || never_respond;
  }
};

// Parses the header value; unknown keys or bad numbers yield an error message.
std::optional<std::string> parse_fault_header(std::string_view value, Faults& out);

// Draws global faults, seeded; thread-safe.
class FaultDice {
 public:
  FaultDice(std::vector<FaultRate> rates, uint64_t seed) : rates_(std::move(rates)), rng_(seed) {}
  // `output_tokens` chooses where mid-stream faults strike.
  Faults roll(int64_t output_tokens);
  bool empty() const { return rates_.empty(); }

 private:
  std::vector<FaultRate> rates_;
  std::mutex mu_;
  std::mt19937_64 rng_;
};

}  // namespace sb::sim
