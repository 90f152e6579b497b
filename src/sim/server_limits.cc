#include "sim/server_limits.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/fault.h"

namespace sb::sim {

void validate(const SimServerLimits& l) {
  auto bad = [](std::string_view flag, std::string_view what, auto value) {
    throw usage_error(fmt::format("sim: {} {} {}", flag, value, what));
  };
  if (!(l.idle_timeout_s >= 0) || l.idle_timeout_s > 86'400)
    bad("--idle-timeout-s", "must be in 0..86400 (0: never)", l.idle_timeout_s);
  if (!(l.read_timeout_s >= 0) || l.read_timeout_s > 86'400)
    bad("--read-timeout-s", "must be in 0..86400 (0: no limit)", l.read_timeout_s);
  if (l.max_connections < 0 || l.max_connections > 1'000'000)
    bad("--max-connections", "must be in 0..1000000 (0: automatic)", l.max_connections);
  if (l.max_fault_delay_ms < 0 || l.max_fault_delay_ms > 86'400'000)
    bad("--max-fault-delay-ms", "must be in 0..86400000", l.max_fault_delay_ms);
}

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

bool fault_headers_allowed(const SimServerLimits& l, std::string_view host) {
  switch (l.fault_headers) {
    case FaultHeaders::allow:
      return true;
    case FaultHeaders::deny:
      return false;
    case FaultHeaders::automatic:
      break;
  }
  return is_loopback_host(host);
}

int64_t effective_max_connections(const SimServerLimits& l, uint64_t soft_fd_limit) {
  if (l.max_connections > 0) return l.max_connections;
  const uint64_t fit = soft_fd_limit > 64 ? soft_fd_limit - 64 : 0;
  return static_cast<int64_t>(std::clamp<uint64_t>(fit, 16, 1'000'000));
}

std::optional<std::string> fault_delay_problem(std::string_view value, int64_t max_delay_ms) {
  Faults f;
  if (parse_fault_header(value, f)) return std::nullopt;  // the handler's own 400/422
  auto over = [&](std::string_view key, int64_t ms) -> std::optional<std::string> {
    if (ms <= max_delay_ms) return std::nullopt;
    return fmt::format(
        "x-sim-fault: {}={} is above --max-fault-delay-ms {} (the simulator's bound on "
        "injected delays)",
        key, ms, max_delay_ms);
  };
  if (auto p = over("stall_ms", f.stall_ms)) return p;
  return over("slow_first_byte_ms", f.slow_first_byte_ms);
}

bool asks_never_respond(std::string_view value) {
  Faults f;
  return !parse_fault_header(value, f) && f.never_respond;
}

}  // namespace sb::sim
