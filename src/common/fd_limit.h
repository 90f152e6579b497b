#pragma once
// File descriptors: the process's RLIMIT_NOFILE, raised once at start-up, and the budget a
// run checks against it before it sends anything.
//
// Every socket is a descriptor: each client connection, and in the same process the
// simulator's side of each of them (prof --sim), its listener, every telemetry scrape, every
// event loop (epoll, eventfd, timerfd) and every open file. A run whose budget exceeds the
// limit would fail part of its requests as connect errors or timeouts; instead it is refused
// up front with the number needed and the fixes (descriptor_shortfall).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sb::fd {

struct DescriptorLimit {
  uint64_t soft = 0;  // RLIM_INFINITY reads as UINT64_MAX
  uint64_t hard = 0;
};

// The current RLIMIT_NOFILE.
DescriptorLimit descriptor_limit();
// Raises the soft limit to the hard limit (a no-op when equal); returns the limit after.
// Never throws: a refused raise leaves the limit as it was. Called at the start of every
// command that opens sockets (main.cc) and again before each run (engine.cc).
DescriptorLimit raise_descriptor_limit();
// The soft limit this process started with (before the first raise): what a child started by
// servebench may want back. Empty before raise_descriptor_limit() was called.
std::optional<uint64_t> original_soft_limit();

// The descriptors one run needs at most, by what holds them.
struct DescriptorBudget {
  int64_t client_connections = 0;  // in-flight requests x endpoints (each keeps its own pool)
  int64_t in_process_server = 0;   // the in-process simulators' side of those connections
  int64_t listeners = 0;           // the in-process simulators' listening sockets
  int64_t telemetry = 0;           // scrapes in flight (client and in-process server side)
  int64_t event_loops = 0;         // io_contexts: an epoll fd, an eventfd and a timerfd each
  int64_t files = 16;              // stdio, requests.jsonl, telemetry.jsonl, traces, datasets
  int64_t margin = 64;             // libraries, DNS, TLS, a retry's socket before the old closes
  int64_t total() const;
};

// The budget of a run with `in_flight` requests in flight at most, spread over `endpoints`
// endpoints of which `in_process_endpoints` are simulators in this process (with their
// `in_process_loops` event loops), served by `workers` client event loops.
DescriptorBudget run_budget(int64_t in_flight, int64_t endpoints, int64_t in_process_endpoints,
                            int64_t in_process_loops, int64_t workers);

// Why `budget` does not fit `limit`, or "" when it does. `flag` names the flag that sets the
// in-flight count ("--concurrency"); `in_flight` is its value. The sentence names the
// number needed, the limit (soft and hard), and the fixes: `ulimit -n N`, the largest in-flight
// count that fits, and (when simulators run in this process) running the simulator as its own
// process.
std::string descriptor_shortfall(const DescriptorBudget& budget, const DescriptorLimit& limit,
                                 std::string_view flag, int64_t in_flight);

// The simulators listening in this process (sim::Server registers itself while running), so
// that a run can count the server side of its connections to them.
// Registers (host, port) with its event-loop count; unregisters on destruction.
class InProcessListener {
 public:
  InProcessListener(std::string host, uint16_t port, int event_loops);
  ~InProcessListener();
  InProcessListener(const InProcessListener&) = delete;
  InProcessListener& operator=(const InProcessListener&) = delete;

 private:
  uint64_t id_;
};
// The event loops of the in-process listener at host:port, or empty when none listens there.
// A loopback host ("127.0.0.1", "localhost", "::1") matches a listener bound to a loopback or
// wildcard address on the same port.
std::optional<int> in_process_listener(std::string_view host, uint16_t port);

}  // namespace sb::fd
