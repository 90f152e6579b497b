#include "sim/fault.h"

#include <charconv>

#include <fmt/format.h>

namespace sb::sim {

std::optional<std::string> parse_fault_header(std::string_view value, Faults& f) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view key = item.substr(0, eq);
    std::string_view num = eq == std::string_view::npos ? "1" : item.substr(eq + 1);
    int64_t n = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || p != num.data() + num.size() || n < 0)
      return fmt::format("x-sim-fault: '{}' needs a non-negative integer", item);
    if (key == "status") {
      if (n < 100 || n > 599) return fmt::format("x-sim-fault: status {} is not an HTTP status", n);
      f.status = static_cast<int>(n);
    } else if (key == "disconnect_after") {
      f.disconnect_after = n;
    } else if (key == "reset_after") {
      f.reset_after = n;
    } else if (key == "stall_ms") {
      f.stall_ms = n;
    } else if (key == "stall_after") {
      f.stall_after = n;
    } else if (key == "malformed_after") {
      f.malformed_after = n;
    } else if (key == "slow_first_byte_ms") {
      f.slow_first_byte_ms = n;
    } else if (key == "never_respond") {
      f.never_respond = n != 0;
    } else {
      return fmt::format("x-sim-fault: unknown fault '{}'", key);
    }
  }
  return std::nullopt;
}

Faults FaultDice::roll(int64_t output_tokens) {
  Faults f;
  if (rates_.empty()) return f;
  std::lock_guard lock(mu_);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int64_t mid = std::max<int64_t>(0, output_tokens / 2);
  for (const auto& r : rates_) {
    if (u(rng_) >= r.rate) continue;
    if (r.kind == "reset")
      f.reset_after = mid;
    else if (r.kind == "disconnect")
      f.disconnect_after = mid;
    else if (r.kind == "stall") {
      f.stall_ms = 2000;
      f.stall_after = mid;
    } else if (r.kind == "malformed")
      f.malformed_after = mid;
    else if (!f.status)
      f.status = std::stoi(r.kind);
  }
  return f;
}

}  // namespace sb::sim
