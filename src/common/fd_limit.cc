#include "common/fd_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace sb::fd {
namespace {

uint64_t as_u64(rlim_t v) {
  return v == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(v);
}

std::atomic<int64_t> g_original_soft{-1};  // -1: never raised

struct Listener {
  uint64_t id;
  std::string host;
  uint16_t port;
  int event_loops;
};
std::mutex g_mu;
std::vector<Listener> g_listeners;  // under g_mu
uint64_t g_next_id = 1;             // under g_mu

bool loopback_or_any(std::string_view host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "0.0.0.0" ||
         host == "::" || host.empty() || host.starts_with("127.");
}

bool same_host(std::string_view asked, std::string_view bound) {
  if (asked == bound) return true;
  const bool asked_loopback = asked == "localhost" || asked == "::1" || asked.starts_with("127.");
  return asked_loopback && loopback_or_any(bound);
}

}  // namespace

DescriptorLimit descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return {};
  return {as_u64(lim.rlim_cur), as_u64(lim.rlim_max)};
}

DescriptorLimit raise_descriptor_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return {};
  int64_t never = -1;
  g_original_soft.compare_exchange_strong(
      never, lim.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(lim.rlim_cur));
  if (lim.rlim_cur != lim.rlim_max) {
    rlimit want = lim;
    want.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &want);  // refused (e.g. a sandbox): the limit stays as it was
  }
  return descriptor_limit();
}

std::optional<uint64_t> original_soft_limit() {
  const int64_t v = g_original_soft.load();
  if (v < 0) return std::nullopt;
  return v == INT64_MAX ? UINT64_MAX : static_cast<uint64_t>(v);
}

int64_t DescriptorBudget::total() const {
  return client_connections + in_process_server + listeners + telemetry + 3 * event_loops + files +
         margin;
}

DescriptorBudget run_budget(int64_t in_flight, int64_t endpoints, int64_t in_process_endpoints,
                            int64_t in_process_loops, int64_t workers) {
  DescriptorBudget b;
  in_flight = std::max<int64_t>(0, in_flight);
  endpoints = std::max<int64_t>(1, endpoints);
  b.client_connections = in_flight * endpoints;
  b.in_process_server = in_flight * in_process_endpoints;
  b.listeners = in_process_endpoints;
  // One scrape of each endpoint's /metrics at a time (twice when served here), plus the
  // live endpoint, a DCGM exporter and a Pushgateway.
  b.telemetry = endpoints + in_process_endpoints + 8;
  // The client's workers, the simulators' loops and their engine threads, telemetry's own.
  b.event_loops = workers + in_process_loops + 4;
  return b;
}

std::string descriptor_shortfall(const DescriptorBudget& b, const DescriptorLimit& limit,
                                 std::string_view flag, int64_t in_flight) {
  const int64_t need = b.total();
  if (limit.soft >= static_cast<uint64_t>(need)) return "";
  // Descriptors per request in flight, and what stays whatever the load.
  const int64_t per_request =
      in_flight > 0 ? (b.client_connections + b.in_process_server) / in_flight : 1;
  const int64_t fixed = need - b.client_connections - b.in_process_server;
  const int64_t soft = static_cast<int64_t>(std::min<uint64_t>(limit.soft, INT64_MAX));
  const int64_t fits = per_request > 0 ? std::max<int64_t>(0, (soft - fixed) / per_request) : 0;
  std::string parts = fmt::format("{} client connections", b.client_connections);
  if (b.in_process_server > 0)
    parts += fmt::format(", {} for the in-process simulator's side of them", b.in_process_server);
  parts += fmt::format(", {} for listeners, telemetry, event loops and files, {} spare",
                       fixed - b.margin, b.margin);
  std::string fixes = fmt::format("raise the limit with `ulimit -n {}`", need);
  if (limit.hard < static_cast<uint64_t>(need))
    fixes += " (above the hard limit: as root, or in /etc/security/limits.conf)";
  fixes += fmt::format(", or lower {} to {} or less", flag, fits);
  if (b.in_process_server > 0)
    fixes +=
        ", or run the simulator as its own process (`servebench sim --preset NAME --port 8080`, "
        "then --base-url http://127.0.0.1:8080), which halves the sockets here";
  const std::string hard =
      limit.hard == UINT64_MAX ? std::string("unlimited") : std::to_string(limit.hard);
  return fmt::format(
      "{} {} needs about {} file descriptors ({}) but the limit is {} (hard limit {}): {}", flag,
      in_flight, need, parts, limit.soft, hard, fixes);
}

InProcessListener::InProcessListener(std::string host, uint16_t port, int event_loops) {
  std::lock_guard lock(g_mu);
  id_ = g_next_id++;
  g_listeners.push_back({id_, std::move(host), port, event_loops});
}

InProcessListener::~InProcessListener() {
  std::lock_guard lock(g_mu);
  std::erase_if(g_listeners, [this](const Listener& l) { return l.id == id_; });
}

std::optional<int> in_process_listener(std::string_view host, uint16_t port) {
  std::lock_guard lock(g_mu);
  for (const Listener& l : g_listeners)
    if (l.port == port && same_host(host, l.host)) return l.event_loops;
  return std::nullopt;
}

}  // namespace sb::fd
