#pragma once
// One benchmark run split over the ranks of an mpirun job and merged on rank 0 (executor.h,
// whose contract steps 3-5 this carries out), with the small agreements the executor makes.
// Every function here is collective over MPI_COMM_WORLD: every rank calls it, in the same
// order.
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "config/engine_config.h"
#include "metrics/run_summary.h"
#include "mpi/comm.h"
#include "mpi/rank_merge.h"

namespace sb::mpi {

// This process's place in the job.
struct RankIdentity {
  int rank = 0, size = 1;
  std::string host;
  std::string name() const { return host + ":" + std::to_string(rank); }  // "node3:2"
};
RankIdentity identify(const Session& mpi);

// SERVEBENCH_MPI_FAULT, the testing aid of executor.h: "unreachable:R" makes rank R
// fail its reachability check, "kill:R:K" makes rank R SIGKILL itself after its K-th record
// of a run.
struct Fault {
  std::string kind;  // "", "unreachable", "kill"
  int rank = -1;
  int64_t after = 0;
};
Fault fault_from_env();

// Every rank of `comm` reports (code, message); all learn the first failure in rank order:
// its code and message, named "rank host:r: ..." unless it is rank 0's. With `print`, rank 0
// prints every failure (a message identical to rank 0's once).
struct Agreement {
  int code = 0;  // 0: every rank succeeded
  std::string message;
};
Agreement agree(int code, const std::string& message, const RankIdentity& me, bool print,
                MPI_Comm comm = MPI_COMM_WORLD);

// A hash of what must be identical on every rank for a run to be one benchmark: the
// effective configuration (config_to_json, so no secret), `extra` (SLO, output folder, ...)
// and the first prompts (a --prompt-file or dataset that differs between hosts).
uint64_t config_hash(const engine::EngineConfig& config, const nlohmann::json& extra);

struct SplitRun {
  engine::EngineConfig engine;              // the whole load; identical on every rank (config_hash)
  std::string dir;                          // the run folder; the same on every rank
  int participants = 0;                     // ranks 0 .. participants-1 share the load (0: all)
  const std::atomic<bool>* stop = nullptr;  // this process's signal flag
  bool show_progress = false;               // rank 0 prints live progress
  bool print_refusals = true;               // rank 0 prints why the run could not start
  // The run's facts for mpi.json and summary.json (rank 0), given its result: an empty one
  // with started_at before the load, the merged one after. mpi_ranks is added.
  std::function<metrics::RunInfo(const engine::RunResult&)> run_info;
  // Rank 0 only, when set: adds to its engine hooks (the run's telemetry: on_start, live
  // metrics), and returns summary.json's `telemetry` once the load ended, before the merge.
  std::function<void(engine::RunHooks&)> leader_hooks;
  std::function<nlohmann::json()> leader_telemetry;
};

struct SplitRunResult {
  // When the run did not take place on any rank: the exit code and why (the same on every
  // participant; printed by rank 0 with print_refusals).
  int refused = 0;
  std::string error;
  bool idle = false;  // this rank was not a participant (the run went on without it)
  // Rank 0, when it took place: every participant's state (records already written out).
  std::vector<RankResult> ranks;
  std::vector<int> dead;  // ranks given up for their silence: the job cannot finalize
  std::optional<metrics::RunSummary> summary;
  bool interrupted = false;
  // This process's signal flag was set when its part ended.
  bool stop_requested = false;
};

// Contract steps 3-5 of executor.h for `run`, over its participants: rank folders,
// clock offsets, reachability, mpi.json, the split load started at agreed instants, the
// results gathered and merged into run.dir by rank 0 (write_merged_run). Participants beyond
// the first take no part when the caller leaves them idle (participants < size).
SplitRunResult run_split(const SplitRun& run, const RankIdentity& me, const Fault& fault);

// How many of `size` ranks a load can keep busy: every participant needs at least one slot of
// a closed loop's concurrency or of an open loop's max_concurrency (0: no cap, all ranks).
int participants_for(const engine::LoadConfig& load, int size);

}  // namespace sb::mpi
