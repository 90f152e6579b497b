#pragma once
// What protects the simulator's HTTP layer from its clients (SimConfig::limits): how long a
// connection may sit idle or take to send a request, how many may be open, and whether a
// client may inject faults through the x-sim-fault header (and for how long they may stall).
// Flags of `servebench sim` (--idle-timeout-s, --read-timeout-s, --max-connections,
// --allow-fault-headers / --no-fault-headers, --max-fault-delay-ms); docs/simulator.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sb::sim {

// Whether x-sim-fault headers are honoured: automatic = only when the server listens on a
// loopback address (anyone who can reach a wider bind could otherwise stall or cut its
// streams); allow / deny whatever the bind.
enum class FaultHeaders { automatic, allow, deny };

struct SimServerLimits {
  // A keep-alive connection with no byte of a next request for this long is closed (uvicorn
  // closes after 5 s, nginx after 75 s); 0: never.
  double idle_timeout_s = 60;
  // A request's header and body must be complete this long after its first byte, else the
  // server answers 408 and closes (slow or stalled senders); 0: no limit.
  double read_timeout_s = 30;
  // Connections open at once; one more is answered 503 with `connection: close` at once and
  // counted (servebench_sim_connections_rejected_total). 0: automatic, the descriptor limit
  // (RLIMIT_NOFILE, soft) less 64 kept for /metrics, the trace and the listener.
  int64_t max_connections = 0;
  FaultHeaders fault_headers = FaultHeaders::automatic;
  // Longest delay a header may ask for (stall_ms, slow_first_byte_ms; a longer one is
  // answered 400/422), and how long a never_respond request holds its connection.
  int64_t max_fault_delay_ms = 60'000;
};

// Throws sb::Error (usage) naming the flag of a value out of range.
void validate(const SimServerLimits& limits);

// Whether a server bound to `host` honours x-sim-fault headers under `limits`.
bool fault_headers_allowed(const SimServerLimits& limits, std::string_view host);
// Whether `host` (an IP literal or "localhost") is a loopback address.
bool is_loopback_host(std::string_view host);

// The connection cap in effect: max_connections, or for 0 the soft descriptor limit less 64
// (at least 16, at most 1,000,000).
int64_t effective_max_connections(const SimServerLimits& limits, uint64_t soft_fd_limit);

// Checks an x-sim-fault header `value` against the delay bound: the reason it is refused
// ("x-sim-fault: stall_ms=90000 is above --max-fault-delay-ms 60000"), or empty. A header
// that does not parse is left to the generate handler (which answers its own error).
std::optional<std::string> fault_delay_problem(std::string_view value, int64_t max_delay_ms);
// Whether the header asks for never_respond (the server bounds it by max_fault_delay_ms).
bool asks_never_respond(std::string_view value);

}  // namespace sb::sim
