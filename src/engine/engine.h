#pragma once
// Runs one benchmark (`servebench prof`): warm-up, then the measured phase,
// across worker threads; returns every request's record, merged after join.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "config/engine_config.h"
#include "engine/worker.h"
#include "metrics/request_record.h"

namespace sb::engine {

struct RunResult {
  // All requests (warm-up included), by id; empty when RunHooks::keep_records is false.
  std::vector<metrics::RequestRecord> records;
  std::string started_at;    // ISO-8601 UTC wall clock at run start
  double duration_s = 0;     // run start to the last request's end
  bool interrupted = false;  // stopped by a signal before the plan ended
  int workers = 0;
  TimePoint run_start;    // the instant every *_ns field counts from
  LoopLagStats loop_lag;  // every worker's, merged (loop_lag.h)
};

// Live view for progress displays, polled by the caller's thread.
struct LiveTotals {
  uint64_t started = 0, done = 0, errors = 0, output_tokens = 0;
  int64_t in_flight = 0;
  double elapsed_s = 0;
  uint64_t planned = 0;     // measured requests planned (0 = bounded by duration)
  double planned_s = 0;     // duration bound (0 = none)
  double ttft_p50_ms = -1;  // approximate (within ~9%), -1 before the first token
};

struct RunHooks {
  RecordSink on_record;  // thread-safe; called as each request ends
  // False: records live only where on_record puts them (a requests.jsonl the caller reads
  // back after the run), so a long soak's memory stays flat instead of growing with every
  // request; RunResult::records is then empty.
  bool keep_records = true;
  const std::atomic<bool>* stop = nullptr;             // set by the caller on interrupt
  std::function<void(const LiveTotals&)> on_progress;  // called ~every 250 ms
  // Called once with the run's start instant (telemetry samplers start on this clock).
  std::function<void(TimePoint run_start)> on_start;
  // Distributed runs (src/mpi): called on the caller's thread with the instant this process
  // proposes for the run's start, then for the measured phase's; returns the instant to use
  // instead (one absolute moment in every process, not earlier than proposed). The engine
  // waits for it, so every *_ns of every process counts from the same moment.
  std::function<TimePoint(TimePoint proposed)> align_start;
};

// Throws sb::Error: usage (bad config), unreachable (DNS failure, or no TCP
// connection could be made before the run).
RunResult run_benchmark(const EngineConfig& config, const RunHooks& hooks);

// Number of worker threads the run will use.
int effective_workers(const EngineConfig& config);

}  // namespace sb::engine
