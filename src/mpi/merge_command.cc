#include "mpi/merge_command.h"

#include <memory>
#include <string>

#include <fmt/format.h>

#include "mpi/rank_merge.h"
#include "report/terminal_summary.h"

namespace sb::mpi {

std::function<int()> add_merge_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "merge", "Merge the rank folders of a distributed (mpirun) run into its summary");
  auto dir = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  app->add_option("DIR", *dir, "The run's output folder (holds mpi.json and rank-*/)")->required();
  app->add_flag("-q,--quiet", *quiet, "Print no summary table");
  return [dir, quiet] {
    const MergeReport rep = merge_rank_folders(*dir);
    if (!*quiet) fmt::print("{}\n", report::format_terminal_summary(rep.summary));
    if (rep.skipped_lines > 0)
      fmt::print(stderr, "servebench: skipped {} unreadable lines (cut by a killed rank)\n",
                 rep.skipped_lines);
    for (const auto& m : rep.missing)
      fmt::print(stderr, "servebench: rank {} did not finish: the run is marked incomplete\n", m);
    fmt::print(stderr, "servebench: merged {} requests into {}/summary.json\n",
               rep.summary.requests.total + rep.summary.requests.warmup, *dir);
    return 0;
  };
}

}  // namespace sb::mpi
