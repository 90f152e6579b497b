#pragma once
// One simulated server in virtual time: the live simulator's request parsing (sim::parse_generate)
// and its Scheduler, without sockets or sleeping. What a request body would get from
// `servebench sim` (its prompt and output token counts, its admission verdict, the instant of
// every token) it gets here from the same code, so a predicted run and a live run of the same
// seed and workload differ only by what the network and the client add.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/adapter.h"
#include "sim/api.h"
#include "sim/config.h"
#include "sim/metrics.h"
#include "sim/scheduler.h"

namespace sb::predict {

// The simulator API a client adapter speaks: TGI (stream or not), completions, chat.
// Throws sb::Error (usage) for --api generic, which no simulator endpoint implements.
sim::ApiKind api_kind_of(const protocol::AdapterConfig& adapter);

// A request the server answered at once with an error (validation, queue full, KV full).
struct Rejection {
  int status = 0;  // HTTP status the live simulator sends (or 200 + in-stream error)
  ErrorClass error_class = ErrorClass::ok;
  std::string message;
};

class VirtualServer {
 public:
  // `config.time_scale` is ignored: virtual time is model time. `start`: the virtual run start
  // (the /metrics page's utilisation counts from it).
  VirtualServer(const sim::SimConfig& config, sim::ApiKind api, TimePoint start);

  // Parses `body` as the live simulator would and offers it to the scheduler at `now` (the
  // caller has advanced to `now`). The accepted request's generation, or why it was refused.
  // `priority_header`: the x-priority-value header the request carries (--priority-mix), taken
  // when the body has no priority field, as the live server does.
  std::variant<sim::GenRequest, Rejection> submit(
      uint64_t id, std::string_view body, TimePoint now,
      std::optional<int64_t> priority_header = std::nullopt);
  void advance(TimePoint now, std::vector<sim::SchedEvent>& out) { sched_.advance(now, out); }
  std::optional<TimePoint> next_event() const { return sched_.next_event(); }
  // Time the server takes to refuse a request (its per-request overhead, at least 100 µs):
  // a closed loop hitting a full queue moves on in virtual time instead of spinning.
  Nanos rejection_delay() const;

  // The live simulator's GET /metrics page at `now` (sim/metrics.h), from this server's state,
  // as data: what a telemetry scrape of the live server would parse. Valid until the next call.
  const PromPage& metrics_page(TimePoint now) {
    metrics_.fill_page(sched_.stats(), now, page_);
    return page_;
  }
  // A request ended (as the live server counts it on /metrics); times in seconds.
  void observe(bool success, double duration_s, double ttft_s, int64_t prompt_tokens,
               int64_t output_tokens) {
    metrics_.observe_request(success, duration_s, ttft_s, prompt_tokens, output_tokens);
  }

 private:
  sim::SimConfig config_;
  sim::ApiKind api_;
  sim::Scheduler sched_;
  sim::SimMetrics metrics_;
  PromPage page_;  // refilled by metrics_page
};

}  // namespace sb::predict
