#pragma once
// `servebench predict`: a run's load and workload against simulated servers in virtual time,
// a discrete-event simulation with no sockets and no sleeping. It issues the requests the live
// engine would issue (src/engine: the same work items, bodies, closed or open loop, warm-up,
// request and duration bounds, open-loop cap) to VirtualServers (one per simulator replica,
// round robin), and records each request as the client would have timed it over a network
// that adds nothing: t_sched and t_send are the intended send time (open loop: the slot's
// release when the cap holds it back), every token event is at the scheduler's token time,
// a refused request ends after the server's refusal delay. It does not model: timeouts,
// faults (--fault-rate), quality scoring of outputs, client-side tokenizers; --abandon-after
// (a client timeout) is refused.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "common/prom_page.h"
#include "config/engine_config.h"
#include "engine/engine.h"
#include "sim/config.h"

namespace sb::predict {

struct VirtualHooks {
  engine::RecordSink on_record;             // called as each request ends, in end-time order
  bool keep_records = true;                 // false: RunResult::records stays empty
  const std::atomic<bool>* stop = nullptr;  // set: no more requests are issued
  // Telemetry in virtual time: at run start + k * sample_interval while the run lasts, and at
  // the first such instant at or after its last request's end, each server's /metrics page as
  // the live simulator renders it from the same state (replica index, ns since run start, the
  // page as the live scrape would parse it). 0: no samples.
  Nanos sample_interval{0};
  std::function<void(size_t replica, int64_t t_ns, const PromPage& page)> on_sample;
  // A long run's samples, bounded: with cap = max_samples rounded up to even (0: no bound), once
  // the sample at k = cap of the current interval has been taken and another is due, the
  // interval doubles (the next samples at start + k' * 2 interval, k' = cap / 2 + 1, ...: at most
  // cap + 1 samples on each grid) and on_coarser(the interval before) is called first, so that
  // what was sampled so far can keep the instants of the new grid only.
  size_t max_samples = 0;
  std::function<void(Nanos finer)> on_coarser;
};

// Throws sb::Error (usage) for what virtual time does not model: --abandon-after, sessions,
// the pooling APIs and --api generic (each message names the flag and the live alternative).
// run_virtual checks it; a plan checks every provider's settings with it before its first run.
void check_modelled(const engine::EngineConfig& config);

// Runs `config` against one VirtualServer per entry of `replicas` (at least one).
// RunResult times count from a virtual run start; duration_s is model time.
// Throws sb::Error (usage) for a config the live engine would refuse, or --api generic.
engine::RunResult run_virtual(const engine::EngineConfig& config,
                              const std::vector<sim::SimConfig>& replicas,
                              const VirtualHooks& hooks);

}  // namespace sb::predict
