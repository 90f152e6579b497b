#pragma once
// `mpirun -np N servebench prof|sweep|run ...`: the run executor (plan/run_executor.h) of an
// MPI job. main() chooses it at start-up when an MPI launcher started the process; the
// commands are the same as in one process, and every measured run of them (prof's one run,
// each level of a sweep, each run of a plan) is one distributed benchmark, split over the
// ranks and merged exactly on rank 0. docs/distributed.md is the user's guide; this is the
// contract.
//
//  1. Configuration: every rank parses its own command line (mpirun gives each the same) and
//     walks the same command (plan_runner for sweep and run). Only rank 0 writes the
//     command's own files (index.json, index.csv, launch logs), prints, chooses the default
//     output folder and starts providers' servers (`launch:`); the other ranks get its result.
//  2. Each run: rank 0 starts the run's simulators (with their seed) and sends their URLs;
//     every rank resolves the run's target (provider, an api_key_env from its own
//     environment) and compares a hash of its effective configuration (config_hash: no
//     secret, the first prompts included) with rank 0's. A rank that fails or differs fails
//     the run before any request (the error names host:rank).
//  3. Split (distributed_run.h): request ids are interleaved over the first
//     min(N, level) ranks (closed loop: concurrency divided, the remainder over the first
//     ranks; open loop: every rank builds the same seeded schedule and sends entries
//     r, r + N, ... at the same absolute instants, --max-concurrency divided likewise). Each
//     rank's steady clock is offset against rank 0's by ping-pong (clock_sync.h), and the run
//     starts at one agreed instant, so every *_ns counts from the same moment.
//  4. Results: each rank streams its records to DIR/rank-<r>/requests.jsonl and marks
//     rank.json "done", then sends its records (record_codec.h, lossless) to rank 0, which
//     writes the merged folder (rank_merge.h) with the run's telemetry, sampled by rank 0
//     exactly as in one process. Rank 0 sends every rank the run's outcome, so decisions
//     taken from outcomes (saturation search, rate bisection, skipping a dead target) are
//     the same on every rank. A stop signal on any rank is agreed at the next run boundary.
//  5. Failures: a rank that cannot reach the target takes no part; the run is written marked
//     incomplete (summary.json run.incomplete, run.missing_ranks) with exit code 3. A rank
//     that goes silent (no heartbeat for SERVEBENCH_MPI_SILENCE_S s, default 30) is reported
//     as died with what its rank folder holds; the command ends there and rank 0 ends the job
//     with MPI_Abort (exit 1) after writing. When the launcher aborts the job on a rank's
//     death (Open MPI's default), `servebench merge DIR` rebuilds the result from the rank
//     folders. A failure between runs on any rank (a providers file missing on one host)
//     ends the command on every rank with the first such error, printed once by rank 0.
// Exit code of rank 0: the command's (exit_code_of); other ranks exit 0 unless the command
// failed as a whole.
//
// Testing aid: SERVEBENCH_MPI_FAULT=unreachable:R makes rank R fail its reachability check;
// SERVEBENCH_MPI_FAULT=kill:R:K makes rank R SIGKILL itself after its K-th record of a run.
#include <memory>

#include "plan/run_executor.h"

namespace sb::mpi {

// Initialises MPI (MPI_Init) for this process; the executor finalizes it when destroyed.
std::unique_ptr<plan::RunExecutor> make_executor(int* argc, char*** argv);

}  // namespace sb::mpi
