#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "common/fd_limit.h"
#include "common/wall_clock.h"
#include "engine/load_phases.h"
#include "engine/phase_clock.h"
#include "net/rx_timestamp.h"
#include "workload/prompt_source.h"

namespace sb::engine {
namespace {

using namespace std::chrono_literals;

// Raises RLIMIT_NOFILE to its hard limit and checks the run's descriptor budget against it
// (common/fd_limit.h): every connection to every endpoint's pool, and the server side of
// those served by a simulator in this process. Throws sb::Error (usage) before anything is
// sent when it does not fit; warns for an uncapped open loop, whose in-flight count is unknown.
void ensure_descriptors(const EngineConfig& config) {
  const LoadConfig& load = config.load;
  const int64_t cap = max_in_flight(load);
  // An uncapped open loop: at most every request of the run, or its peak rate x the timeout.
  const int64_t planned = load.num_requests > 0 ? load.num_requests + load.warmup : INT64_MAX;
  const double peak_rate =
      load.mode == LoadMode::open ? load::peak_rate_per_s(schedule_config(load)) : 0.0;
  const int64_t in_flight =
      cap > 0
          ? std::max(cap, warmup_slots(load))
          : std::min<int64_t>(
                planned, static_cast<int64_t>(std::ceil(peak_rate * to_s(config.timeouts.total))));
  int64_t in_process = 0, in_process_loops = 0;
  auto count = [&](const net::Url& url) {
    if (const auto loops = fd::in_process_listener(url.host, url.port)) {
      ++in_process;
      in_process_loops += *loops;
    }
  };
  count(config.client.url);
  for (const net::Url& url : config.extra_endpoints) count(url);
  const int64_t endpoints = 1 + static_cast<int64_t>(config.extra_endpoints.size());
  const fd::DescriptorBudget budget =
      fd::run_budget(in_flight, endpoints, in_process, in_process_loops, effective_workers(config));
  const std::string_view flag =
      load.mode == LoadMode::closed ? "--concurrency" : "--max-concurrency";
  const std::string why =
      fd::descriptor_shortfall(budget, fd::raise_descriptor_limit(), flag, in_flight);
  if (why.empty()) return;
  if (cap > 0) throw usage_error("no request was sent: " + why);
  fmt::print(stderr,
             "servebench: warning: an uncapped open loop may hold up to {} requests in flight "
             "(--max-concurrency bounds it): {}\n",
             in_flight, why);
}

// Splits `total` over `parts` as evenly as possible; part i's share.
int64_t share(int64_t total, int parts, int i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

// Every endpoint's client context, each probed before the run: clients[0] serves
// config.client, clients[i] config.extra_endpoints[i - 1] (load balancing).
struct Endpoints {
  std::vector<std::unique_ptr<net::ClientContext>> contexts;
  std::vector<const net::ClientContext*> clients;  // contexts[i].get()
};

// Throws sb::Error(unreachable) naming the first endpoint that takes no connection.
Endpoints connect_endpoints(const EngineConfig& config) {
  Endpoints e;
  auto add = [&](const net::ClientOptions& o) {
    e.contexts.push_back(std::make_unique<net::ClientContext>(o));
    const auto probe = net::probe_connect(*e.contexts.back(), config.timeouts.connect);
    if (!probe.ok())
      throw Error(fmt::format("cannot reach {}: {}", o.url.to_string(), probe.message),
                  ExitCode::unreachable);
    e.clients.push_back(e.contexts.back().get());
  };
  add(config.client);
  for (const net::Url& url : config.extra_endpoints) {
    net::ClientOptions o = config.client;
    o.url = url;
    add(o);
  }
  return e;
}

// One run's workers and what every phase of it shares.
struct Crew {
  const EngineConfig& config;
  const RunHooks& hooks;
  const std::atomic<bool>& stop;  // the caller's interrupt flag
  TimePoint run_start;
  std::vector<std::unique_ptr<Worker>> workers;
};

// The live totals summed over the workers' counters (relaxed reads: a display's view).
LiveTotals live_totals(const Crew& crew) {
  LiveTotals t;
  for (const auto& w : crew.workers) {
    const auto& c = w->counters();
    t.started += c.started.load(std::memory_order_relaxed);
    t.done += c.done.load(std::memory_order_relaxed);
    t.errors += c.errors.load(std::memory_order_relaxed);
    t.output_tokens += c.output_tokens.load(std::memory_order_relaxed);
    t.in_flight += c.in_flight.load(std::memory_order_relaxed);
  }
  std::array<uint64_t, WorkerCounters::kTtftBuckets> ttft{};
  uint64_t ttft_n = 0;
  for (const auto& w : crew.workers)
    for (int b = 0; b < WorkerCounters::kTtftBuckets; ++b) {
      const uint64_t n = w->counters().ttft[b].load(std::memory_order_relaxed);
      ttft[b] += n;
      ttft_n += n;
    }
  for (uint64_t seen = 0, b = 0; ttft_n > 0 && b < ttft.size(); ++b) {
    seen += ttft[b];
    if (2 * seen >= ttft_n) {
      t.ttft_p50_ms = WorkerCounters::ttft_bucket_ms(static_cast<int>(b));
      break;
    }
  }
  const LoadConfig& load = crew.config.load;
  t.elapsed_s = to_s(now_of(crew.config.time_source) - crew.run_start);
  // Sessions: num_requests counts sessions, whose turns are not known ahead.
  t.planned = load.sessions.enabled() ? 0 : static_cast<uint64_t>(load.num_requests + load.warmup);
  t.planned_s = to_s(load.duration);
  return t;
}

// Runs one phase on every worker, worker i with slots_of(i) slots; polls progress every
// 250 ms and, once the phase stops (interrupt or stop_at), cancels what is still in flight
// after the grace period. False when interrupted.
bool run_phase(Crew& crew, Phase& phase, const std::function<int64_t(int)>& slots_of) {
  const RunHooks& hooks = crew.hooks;
  std::vector<std::future<void>> done;
  for (int i = 0; i < static_cast<int>(crew.workers.size()); ++i)
    done.push_back(crew.workers[i]->run_phase(phase, slots_of(i)));
  PhaseStopper stopper(phase.stop_at, crew.config.grace_period);
  for (auto& f : done) {
    while (f.wait_for(250ms) != std::future_status::ready) {
      if (hooks.on_progress) hooks.on_progress(live_totals(crew));
      if (stopper.cancel_now(now_of(crew.config.time_source), crew.stop.load()))
        for (auto& w : crew.workers) w->cancel_in_flight();
    }
  }
  if (hooks.on_progress) hooks.on_progress(live_totals(crew));
  return !crew.stop.load();
}

// The warm-up: load.warmup closed-loop requests (ids [0, warmup)) over the run's
// in-flight cap (open loop without a cap: about one second's rate, 1..64 slots).
bool run_warmup(Crew& crew) {
  const LoadConfig& load = crew.config.load;
  Phase warm;
  warm.warmup = true;
  warm.mode = LoadMode::closed;
  warm.first_index = 0;
  warm.end_index = static_cast<uint64_t>(load.warmup);
  warm.start = now_of(crew.config.time_source);
  warm.next = 0;
  const int64_t slots = warmup_slots(load);
  const int n = static_cast<int>(crew.workers.size());
  return run_phase(crew, warm, [&](int i) { return share(slots, n, i); });
}

// The measured phase: ids from load.warmup on, closed loop or on a seeded open-loop
// schedule, bounded by num_requests and/or duration.
bool run_measured(Crew& crew) {
  const LoadConfig& load = crew.config.load;
  const std::vector<Nanos> schedule = measured_schedule(load);
  Phase measured;
  measured.mode = load.mode;
  measured.first_index = static_cast<uint64_t>(load.warmup);
  measured.end_index = load.num_requests > 0
                           ? measured.first_index + static_cast<uint64_t>(load.num_requests)
                           : UINT64_MAX;
  measured.next = 0;  // closed loop claims count from 0 (Worker::closed_slot)
  if (load.sessions.enabled()) {
    // A closed loop over sessions: num_requests counts sessions (Worker::session_slot).
    measured.sessions = true;
    measured.end_index =
        load.num_requests > 0 ? static_cast<uint64_t>(load.num_requests) : UINT64_MAX;
  }
  if (load.mode == LoadMode::open) measured.schedule = &schedule;
  // Start a little ahead so every worker is waiting when the first send is due.
  measured.start = now_of(crew.config.time_source) + (load.mode == LoadMode::open ? 5ms : 0ms);
  if (crew.hooks.align_start) {
    measured.start = crew.hooks.align_start(measured.start);
    std::this_thread::sleep_until(measured.start - (load.mode == LoadMode::open ? 5ms : 0ms));
  }
  if (load.duration > Nanos::zero()) measured.stop_at = measured.start + load.duration;
  const int workers = static_cast<int>(crew.workers.size());
  return run_phase(crew, measured, [&](int i) {
    const int64_t cap = max_in_flight(load);
    return cap > 0 ? share(cap, workers, i) : int64_t{0};
  });
}

// Joins the workers and merges their records into `result`, by id; duration_s runs
// to the last request's end.
void collect_records(Crew& crew, RunResult& result) {
  for (auto& w : crew.workers) w->join();
  int64_t last_end = 0;
  for (auto& w : crew.workers) {
    auto& r = w->records();
    std::move(r.begin(), r.end(), std::back_inserter(result.records));
    last_end = std::max(last_end, w->last_end_ns());
    result.loop_lag.merge(w->loop_lag());
  }
  std::sort(result.records.begin(), result.records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  result.duration_s = static_cast<double>(last_end) / 1e9;
}

}  // namespace

int effective_workers(const EngineConfig& config) {
  int w = config.workers > 0 ? config.workers
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t cap = max_in_flight(config.load);
  if (cap > 0) w = static_cast<int>(std::min<int64_t>(w, cap));
  return std::max(1, w);
}

RunResult run_benchmark(const EngineConfig& config, const RunHooks& hooks) {
  validate(config);
  const LoadConfig& load = config.load;
  ensure_descriptors(config);
  const net::RxStampingHold stamping;  // every read of the run gets a kernel stamp

  // The workload first: a bad dataset or tokenizer is a usage error before any connection.
  const workload::PromptSource prompts(config.workload);
  if (!prompts.warning().empty())
    fmt::print(stderr, "servebench: warning: {}\n", prompts.warning());
  const Endpoints endpoints = connect_endpoints(config);
  const std::vector<const net::ClientContext*>& clients = endpoints.clients;
  EndpointPicker picker(clients.size(), config.load_balancer, config.load.seed);

  std::atomic<bool> never_stop{false};
  const std::atomic<bool>& stop = hooks.stop ? *hooks.stop : never_stop;
  RecordSink sink = hooks.on_record ? hooks.on_record : [](const metrics::RequestRecord&) {};

  RunResult result;
  result.started_at = iso_utc_now();
  TimePoint run_start = now_of(config.time_source);
  if (hooks.align_start) {
    run_start = hooks.align_start(run_start);
    std::this_thread::sleep_until(run_start);
  }
  result.run_start = run_start;
  if (hooks.on_start) hooks.on_start(run_start);
  const int worker_count = effective_workers(config);
  result.workers = worker_count;
  Crew crew{config, hooks, stop, run_start, {}};
  for (int i = 0; i < worker_count; ++i)
    crew.workers.push_back(std::make_unique<Worker>(
        i, worker_count,
        Worker::Shared{config, *clients[0], prompts, run_start, sink, stop,
                       clients.size() > 1 ? &clients : nullptr,
                       clients.size() > 1 ? &picker : nullptr, hooks.keep_records}));

  bool completed = true;
  if (load.warmup > 0) completed = run_warmup(crew);
  if (completed) completed = run_measured(crew);
  collect_records(crew, result);
  result.interrupted = !completed;
  return result;
}

}  // namespace sb::engine
