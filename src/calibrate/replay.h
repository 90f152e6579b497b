#pragma once
// A measured run folder as `servebench calibrate` replays it: the load of its summary.json
// (closed-loop concurrency or open-loop rate, warm-up, request count) and the request shapes
// of its requests.jsonl (prompt and output tokens per request id, warm-up flags), as an
// EngineConfig that predict::run_virtual runs against any simulator config: the same requests
// as measured, the server replaced by the candidate.
//
// Contract (pure apart from reading the two files):
//   - request i of the replay has record i's input_tokens as its prompt (a synthetic prompt of
//     exactly that many estimated tokens, workload::WorkloadConfig::replay) and its measured
//     output_tokens as max_tokens (ignore_eos: the simulator generates exactly that many);
//     a failed request (no output) asks for the run's --output-length;
//   - a closed loop keeps its concurrency; an open loop its rate, arrival process, burstiness,
//     rate pattern, seed and cap, so the schedule (load::make_schedule) is the one the run used;
//   - a run of a time-scaled simulator (config.sim_time_scale S < 1) is read in model time:
//     its durations / S, its rates x S (`measured` and the replayed request rate);
//   - the request count is the number of measured records (a --duration run replays as many).
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/level_metrics.h"
#include "config/engine_config.h"

namespace sb::calibrate {

// What makes two runs "the same server and workload" (checked by check_same_workload).
struct WorkloadShape {
  std::string api, model, sim_preset;  // sim_preset: "" for a real server
  bool stream = true;
  double input_tokens_mean = 0, output_tokens_mean = 0;  // over measured records
  double input_tokens_p90 = 0, output_tokens_p90 = 0;
};

struct MeasuredRun {
  std::string dir;
  std::string level;       // "c8" (closed, concurrency 8) or "r2.5" (open, 2.5 requests/s)
  double level_value = 0;  // the concurrency or the rate (model time)
  bool closed = true;
  double time_scale = 1;  // the run's simulator time scale; 1 for real servers
  int64_t measured_requests = 0, warmup_requests = 0;
  engine::EngineConfig replay;  // run it with predict::run_virtual
  LevelMetrics measured;        // summary.json's figures, model time
  WorkloadShape shape;
};

// Reads `dir`/summary.json and `dir`/requests.jsonl. Throws sb::Error (usage) naming the
// folder: no summary.json, no requests.jsonl ("calibrate replays each request: it needs the
// run's requests.jsonl"), no measured request, an API predict cannot replay (generic).
MeasuredRun read_measured_run(const std::string& dir);

// Checks that `runs` are of one server and workload at >= 3 distinct load levels. Throws
// sb::Error (usage) saying what differs (the API, model, simulator preset, streaming, or the
// mean/p90 input or output tokens by more than `length_tolerance`, relative) or how many
// levels there are and that 3 are needed.
void check_same_workload(const std::vector<MeasuredRun>& runs, double length_tolerance = 0.25);

}  // namespace sb::calibrate
