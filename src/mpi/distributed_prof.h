#pragma once
// `mpirun -np N servebench prof ...`: one benchmark driven by N processes (ranks), merged
// exactly. docs/distributed.md is the user's guide; this is the contract.
//
//  1. Configuration: rank 0 broadcasts its argv; every rank parses it (so files such as
//     --api-key-file are read on each host) and then compares a hash of its effective
//     configuration (config_to_json, SLO, output folder, the first prompts) with rank 0's;
//     a rank that differs stops the run before any request (exit 2), named host:rank.
//  2. Split: request ids are interleaved over ranks (engine LoadConfig::shard_index/count).
//     Closed loop: concurrency is divided with the remainder spread over the first ranks,
//     num_requests likewise (rank r sends ids first + k*N + r); --concurrency must be >= N.
//     Open loop: every rank builds the same seeded global schedule and sends entries
//     k = r, r + N, ... at the same absolute instants; --max-concurrency is divided like
//     concurrency.
//  3. Clock: each rank's steady-clock offset against rank 0 is estimated by ping-pong
//     (clock_sync.h); the run and the measured phase start at one instant agreed through
//     those offsets (engine RunHooks::align_start), so every rank's *_ns counts from the
//     same moment (to within the reported uncertainty) and time series merge directly.
//  4. Results: each rank streams its records to DIR/rank-<r>/requests.jsonl as it goes and
//     marks DIR/rank-<r>/rank.json "done" at the end, then sends its records (record_codec.h)
//     to rank 0, which writes the merged folder (rank_merge.h).
//  5. Failure: a rank that cannot reach the target takes no part in the load and is reported
//     as failed; a rank that goes silent (no heartbeat for SERVEBENCH_MPI_SILENCE_S seconds,
//     default 30) while rank 0 waits for results is reported as died, with whatever its rank
//     folder holds. Either way the run is marked incomplete (summary.json run.incomplete,
//     run.missing_ranks). When the launcher aborts the whole job on a rank's death (Open MPI's
//     default; avoid with --mca orte_abort_on_non_zero_status 0), `servebench merge DIR`
//     rebuilds the same incomplete-marked result from the rank folders.
// Exit code of rank 0: as `prof`; 3 when a rank could not reach the target; 1 when a rank
// died (then rank 0 ends the job with MPI_Abort after writing, as MPI cannot finalize with a
// dead peer). Other ranks exit 0 unless the configuration was refused.
//
// Testing aid: SERVEBENCH_MPI_FAULT=unreachable:R makes rank R fail its reachability check;
// SERVEBENCH_MPI_FAULT=kill:R:K makes rank R SIGKILL itself after its K-th record.
namespace sb::mpi {

int run_distributed_prof(int argc, char** argv);

}  // namespace sb::mpi
