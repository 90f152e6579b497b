#pragma once
// `servebench merge DIR`: rebuilds a distributed run's merged requests.jsonl, summary.json and
// summary.csv from DIR/mpi.json and the rank folders DIR/rank-*/ (src/mpi/rank_merge.h), for a
// job the launcher aborted before rank 0 merged (e.g. Open MPI after a rank was killed).
#include <functional>

#include <CLI/CLI.hpp>

namespace sb::mpi {

std::function<int()> add_merge_command(CLI::App& root);

}  // namespace sb::mpi
