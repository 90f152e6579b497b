#pragma once
// The plain configuration of one `prof` run: built once from flags (src/cli),
// validated once (validate()), passed by const& to everything below.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/time_source.h"
#include "engine/endpoint_picker.h"
#include "load/arrival_schedule.h"
#include "load/priority_mix.h"
#include "net/client_options.h"
#include "protocol/adapter.h"
#include "quality/tokenizer.h"
#include "workload/prompt_source.h"
#include "workload/session_spec.h"

namespace sb::engine {

using namespace std::chrono_literals;

struct Timeouts {
  Nanos connect = 10s;       // TCP connect + TLS handshake
  Nanos first_token = 300s;  // send -> first text-bearing event (or whole body when not streaming)
  Nanos idle = 60s;          // longest gap between two reads once the first token arrived
  Nanos total = 600s;        // send -> end of response
  // --abandon-after: a simulated user gives up when no first token has arrived this long after
  // the request's intended send time (t_sched, not t_send: the user started waiting when the
  // request was due, so time queued in the client counts); the connection is closed and the
  // request ends `abandoned`. Zero: users never give up.
  Nanos abandon_after = Nanos::zero();
};

enum class LoadMode { closed, open };

struct LoadConfig {
  LoadMode mode = LoadMode::closed;
  int64_t concurrency = 1;  // closed loop: requests in flight
  double request_rate = 0;  // open loop: requests per second
  load::Arrival arrival = load::Arrival::poisson;
  double burstiness = 1.0;         // gamma shape (1 = Poisson)
  load::RatePattern rate_pattern;  // open loop: the rate's shape over time (--rate-pattern)
  int64_t max_concurrency = 0;     // open loop cap (0 = none); waiting counts as queueing
  // Trace replay (--trace, workload/trace.h): the measured phase's send offsets since its
  // start, given instead of drawn (mode open; request_rate is then the trace's mean rate, used
  // for sizing and reported as the target). Null: drawn from the arrival process.
  std::shared_ptr<const std::vector<Nanos>> trace_offsets;
  // Sessions (--session-concurrency, workload/session_spec.h): when enabled the measured phase
  // is a closed loop over sessions: `concurrency` (== sessions.concurrency) sessions in flight,
  // each sending its turns one after another, every turn carrying the earlier turns' answers,
  // with a think time before each turn after the first; num_requests then counts sessions.
  workload::SessionSpec sessions;
  int64_t num_requests = 0;        // measured requests (0 = bounded by duration only)
  Nanos duration = Nanos::zero();  // stop issuing after this (0 = bounded by count only)
  int64_t warmup = 0;              // requests sent first and not measured
  uint64_t seed = 0;
  // --priority-mix (load/priority_mix.h): each request's class, drawn from `seed` and its id;
  // sent as vLLM's body "priority" (openai, openai-chat) and the x-priority / x-priority-value
  // headers (every API). Empty: no classes, nothing sent.
  load::PriorityMix priority_mix;
  // Distributed runs (src/mpi): this process sends only request ids first + k * shard_count +
  // shard_index of each phase (closed and open loop), with concurrency and max_concurrency
  // then meaning this process's own share. Defaults: the whole load.
  int shard_index = 0;
  int shard_count = 1;
};

struct EngineConfig {
  net::ClientOptions client;
  // Further base URLs of the same server (providers.yaml `endpoints:`): requests are spread
  // over client.url and these by load_balancer, each with its own keep-alive connections
  // (same TLS options). Empty: client.url only, exactly as without load balancing.
  std::vector<net::Url> extra_endpoints;
  LoadBalancer load_balancer = LoadBalancer::rr;
  std::string endpoint;  // path under the base URL; empty = the API's default
  std::vector<std::pair<std::string, std::string>> headers;  // -H 'Name: value'
  // Sent as "Authorization: Bearer ..." (--api anthropic: "x-api-key: ...",
  // protocol::api_headers); never written anywhere.
  std::string api_key;
  protocol::AdapterConfig adapter;
  workload::WorkloadConfig workload;
  LoadConfig load;
  Timeouts timeouts;
  int workers = 0;  // event-loop threads; 0 = one per core
  size_t max_event_bytes = size_t{1} << 20;
  // A test seam, zero in every real run: each worker's loop-lag tick (engine/loop_lag.h) blocks
  // its event loop this long, a deliberately slow client for the client-health verdict's tests.
  Nanos loop_stall_for_tests{0};
  bool keep_output_text =
      false;  // fill RequestRecord::output_text (quality, tokenizer, --save-outputs)
  bool save_outputs = false;  // keep output_text in the records (requests.jsonl "output")
  // Tokenizer of the quality scores (src/quality) when work items carry a reference.
  quality::Tokenize quality_tokenize = quality::Tokenize::automatic;
  Nanos grace_period = 30s;  // after an interrupt, wait this long for in-flight requests
  Nanos bucket_interval = 1s;
  // The clock seam (common/time_source.h): the run's start, the phases' starts, the open-loop
  // schedule's intended send times (t_sched), the closed loop's slot instants, the stop_at
  // and grace-period checks and the progress's elapsed time read it. Sockets, Asio timers and
  // receive stamps (t_send, token arrivals, t_end) stay on the steady clock, so a live run
  // needs a source with the steady clock's epoch and rate; null (the default) is the steady
  // clock, read inline. Tests drive the socket-free rules (engine/phase_clock.h) with a
  // ManualTimeSource. Not owned.
  const TimeSource* time_source = nullptr;
};

// Throws sb::Error (usage) naming the offending flag and its fix; a header name or value, or
// the API key, with a control character (common/header_check.h) is refused naming the
// header, never showing the value.
void validate(const EngineConfig& config);

}  // namespace sb::engine
