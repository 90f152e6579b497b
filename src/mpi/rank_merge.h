#pragma once
// One run folder from the results of many ranks (docs/metrics.md output contract, extended).
//
// Folder layout of a distributed run (`mpirun -np N servebench prof -o DIR ...`, and each run
// folder of a sweep or plan under mpirun):
//   DIR/mpi.json               written by rank 0 before the load starts: world size, every
//                              rank's host and clock offset, the run's info (config, SLO, ...)
//   DIR/rank-<r>/rank.json     rank r's state: "running" at start, then "done" or "failed"
//                              (with the error); written atomically by rank r itself
//   DIR/rank-<r>/requests.jsonl  rank r's records, streamed and flushed every second as in a
//                              single-process run (what survives a rank that is killed)
//   DIR/requests.jsonl         every rank's records merged, by id, each with a "rank" field
//   DIR/summary.json, summary.csv  summarize_run() over the merged records, exactly as one
//                              process would compute it (no per-rank percentile is averaged),
//                              plus "distributed" (per-rank diagnosis) and run.incomplete /
//                              run.missing_ranks.
// Rank folders live on each rank's host: with a shared filesystem they are all in DIR; without
// one, copy them into DIR before `servebench merge DIR`.
//
// A rank is "missing" unless it reported "done": it failed (could not reach the target), died,
// or left no state at all. Records a missing rank did leave are kept (every record is a true
// measurement), but the run is marked incomplete because that rank's share of the load was
// not (entirely) sent.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/request_record.h"
#include "metrics/run_summary.h"

namespace sb::mpi {

struct RankResult {
  int rank = 0;
  std::string host;
  std::string state = "missing";     // "done" | "failed" | "died" | "missing"
  std::string error;                 // why, for anything but "done"
  int64_t clock_offset_ns = 0;       // rank 0's steady clock minus this rank's
  int64_t clock_uncertainty_ns = 0;  // half the best ping-pong round trip
  bool interrupted = false;
  std::vector<metrics::RequestRecord> records;

  std::string name() const { return host + ":" + std::to_string(rank); }  // "node3:2"
};

// RunInfo <-> JSON, for DIR/mpi.json (the fields summary.json needs to be rebuilt).
nlohmann::json run_info_to_json(const metrics::RunInfo& info);
metrics::RunInfo run_info_from_json(const nlohmann::json& j);

// Writes DIR/requests.jsonl (with "rank"), DIR/summary.json and DIR/summary.csv from `ranks`
// (one entry per rank of the job, in rank order); returns the merged summary. `info` is the
// run's, as rank 0 knows it; duration_s and interrupted are taken over all ranks.
metrics::RunSummary write_merged_run(const std::string& dir, std::vector<RankResult>& ranks,
                                     metrics::RunInfo info);

// Rebuilds DIR's merged files from DIR/mpi.json and DIR/rank-*/ (what `servebench merge DIR`
// runs after a job that was aborted before rank 0 could merge). Cut last lines of a rank's
// requests.jsonl are skipped. Throws sb::Error (usage) when DIR/mpi.json is missing.
struct MergeReport {
  metrics::RunSummary summary;
  std::vector<std::string> missing;  // names of the ranks not "done"
  int64_t skipped_lines = 0;
};
MergeReport merge_rank_folders(const std::string& dir);

// Reads one rank folder's requests.jsonl; skips lines that do not parse, counting them.
std::vector<metrics::RequestRecord> read_rank_records(const std::string& path, int64_t* skipped);

std::string rank_dir(const std::string& dir, int rank);  // DIR/rank-<r>

}  // namespace sb::mpi
