#pragma once
// `mpirun -np N servebench sweep ...` and `mpirun -np N servebench run PLAN.yaml ...`: every
// run of the sweep or plan is one distributed benchmark, split and merged exactly as `prof`
// under mpirun (distributed_prof.h), and rank 0 writes the folders one process writes.
// docs/distributed.md is the user's guide; this is the contract.
//
//  1. Every rank parses rank 0's command line (broadcast) and walks the same sweep or plan
//     (plan_runner) with the executor of this file (plan/run_executor.h). Only rank 0 writes
//     the plan's own files (index.json, index.csv, launch logs), prints, chooses the default
//     output folder and starts providers' servers (`launch:`); the other ranks get its result
//     (the folder, the cold start, or the launch's failure).
//  2. Each run: rank 0 starts the run's simulators (sim providers, --sim) and sends their
//     URLs; every rank resolves the run's configuration (provider, an api_key_env from its
//     own environment) and compares its hash with rank 0's. A rank that fails or differs
//     fails the run (the error names host:rank); the plan records it and goes on.
//  3. The run is distributed_prof.h's steps 2-5 (distributed_run.h) over the first
//     min(N, level) ranks for a closed loop at concurrency `level` (an open loop likewise over
//     min(N, --max-concurrency) when capped): a level below N runs on fewer ranks, the rest
//     wait. Rank 0 writes the run's folder (requests.jsonl with `rank`, summary.json with
//     `distributed`, summary.csv, mpi.json, rank-<r>/).
//  4. Rank 0 sends every rank the run's outcome (status, headline numbers, SLO verdict), so
//     each decision taken from outcomes (saturation search, rate bisection, skipping an
//     unreachable target) is the same on every rank. A stop signal on any rank is agreed on
//     at the next run boundary, so every rank stops the plan at the same run.
//  5. Failures. A rank that cannot reach the target takes no part in that run, which is
//     written marked incomplete and recorded as failed with exit code 3 (as `prof`; the plan
//     then skips that target's remaining runs, as for an unreachable target). A rank that
//     dies during a run (silent for SERVEBENCH_MPI_SILENCE_S) ends the plan: rank 0 writes
//     that run marked incomplete and the index, then ends the job with MPI_Abort (exit 1).
//     Each executor call first checks that every rank is at the same step and that none
//     failed between runs (say, a providers file missing on one host); otherwise every rank
//     ends with the first such error, printed once by rank 0.
// Exit code of rank 0: the sweep's or plan's; the other ranks exit 0 unless the command
// failed as a whole. An unexpected error inside a run ends the job with MPI_Abort, as `prof`.
namespace sb::mpi {

// argv[1] is "sweep" or "run".
int run_distributed_plan(int argc, char** argv);

}  // namespace sb::mpi
