#include "mpi/distributed_prof.h"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/prof_command.h"
#include "cli/prof_options.h"
#include "cli/signals.h"
#include "common/error.h"
#include "engine/engine.h"
#include "mpi/comm.h"
#include "mpi/distributed_run.h"
#include "net/url.h"
#include "report/terminal_summary.h"
#include "sim/server.h"

namespace sb::mpi {
namespace {

using json = nlohmann::json;

// What must be identical on every rank for the run to be one benchmark.
uint64_t prof_config_hash(const cli::ProfConfig& pc) {
  const json extra = {
      {"slo",
       {pc.slo.ttft_ms.value_or(-1), pc.slo.tpot_ms.value_or(-1), pc.slo.e2e_ms.value_or(-1)}},
      {"output_dir", pc.output_dir},
      {"sim", pc.sim_preset},
      {"max_error_rate", pc.max_error_rate},
      {"api_key_set", !pc.engine.api_key.empty()}};
  return config_hash(pc.engine, extra);
}

int run(Session& mpi, int argc, char** argv) {
  const RankIdentity me = identify(mpi);
  const int rank = me.rank, size = me.size;
  const Fault fault = fault_from_env();

  // 1. Rank 0's argv, parsed on every rank.
  std::vector<std::string> args{"servebench"};
  for (auto& a : broadcast_args(argc, argv, rank)) args.push_back(std::move(a));
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());

  CLI::App app{"servebench (distributed)"};
  app.require_subcommand(1);
  auto* sub = app.add_subcommand("prof", "Benchmark one inference endpoint");
  cli::ProfFlags flags;
  cli::add_prof_flags(*sub, flags);
  cli::ProfConfig pc;
  int code = 0;
  std::string message;
  try {
    app.parse(static_cast<int>(av.size()), av.data());
  } catch (const CLI::ParseError& e) {
    // Every rank parsed the same argv, so every rank lands here: rank 0 prints.
    const int rc = rank == 0 ? app.exit(e) : e.get_exit_code();
    return rc == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  try {
    pc = cli::to_prof_config(flags);
    const auto& l = pc.engine.load;
    if (l.mode == engine::LoadMode::closed && l.concurrency < size)
      throw usage_error(fmt::format(
          "--concurrency {} is below the number of ranks ({}): every rank needs at least one "
          "slot; raise the concurrency or start fewer ranks",
          l.concurrency, size));
    if (l.mode == engine::LoadMode::open && l.max_concurrency > 0 && l.max_concurrency < size)
      throw usage_error(fmt::format(
          "--max-concurrency {} is below the number of ranks ({}); raise it or start fewer ranks",
          l.max_concurrency, size));
  } catch (const Error& e) {
    code = static_cast<int>(e.code());
    message = e.what();
  }
  if (int rc = agree(code, message, me, true).code) return rc;

  // 2. --sim: rank 0 hosts the simulator (single-host runs); everyone targets it.
  std::unique_ptr<sim::Server> simulator;
  std::string sim_url;
  if (rank == 0 && !pc.sim_preset.empty()) {
    sim::SimConfig sc = sim::preset_config(pc.sim_preset);
    sc.host = "127.0.0.1";
    sc.port = 0;
    sc.time_scale = pc.sim_time_scale;
    simulator = std::make_unique<sim::Server>(sc);
    simulator->start();
    sim_url = simulator->url();
  }
  sim_url = bcast_string(sim_url, 0, MPI_COMM_WORLD);
  if (!sim_url.empty()) pc.engine.client.url = net::parse_url(sim_url);

  // 3. Every rank's configuration must be rank 0's.
  code = 0;
  message.clear();
  try {
    uint64_t h = prof_config_hash(pc);
    uint64_t h0 = h;
    MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (h != h0)
      throw usage_error(
          "its configuration differs from rank 0's (different --prompt-file/dataset contents, "
          "environment or servebench version on that host?); no request was sent");
  } catch (const Error& e) {
    code = static_cast<int>(e.code());
    message = e.what();
  }
  if (int rc = agree(code, message, me, true).code) return rc;

  // 4-7. The output folder, then the run split over every rank (distributed_run.h).
  std::string dir =
      rank == 0 ? (pc.output_dir.empty() ? cli::default_output_dir(pc.engine) : pc.output_dir)
                : std::string();
  SplitRun split;
  split.engine = pc.engine;
  split.dir = bcast_string(dir, 0, MPI_COMM_WORLD);
  split.participants = size;
  split.stop = &cli::install_stop_handlers();
  split.show_progress = !pc.no_progress;
  split.run_info = [&pc](const engine::RunResult& r) { return cli::run_info(pc, r); };
  SplitRunResult res = run_split(split, me, fault);
  if (res.refused != 0) return res.refused;
  if (rank != 0) return 0;
  if (simulator) simulator->stop();  // only now: the other ranks' loads used it until here
  dir = split.dir;
  const metrics::RunSummary& summary = *res.summary;
  if (!pc.quiet) fmt::print("{}\n", report::format_terminal_summary(summary));
  fmt::print(stderr,
             "servebench: {} ranks; results in {}/ (summary.json, summary.csv, requests.jsonl, "
             "rank-*/)\n",
             size, dir);

  bool any_unreachable = false;
  for (const auto& r : res.ranks)
    if (r.state != "done") {
      any_unreachable = any_unreachable || r.state == "failed";
      fmt::print(stderr, "servebench: rank {} {}: {} (run marked incomplete)\n", r.name(), r.state,
                 r.error);
    }
  if (!res.dead.empty()) {
    std::fflush(stdout);
    std::fflush(stderr);
    mpi.abort(static_cast<int>(ExitCode::failure));  // MPI cannot finalize with a dead peer
  }
  if (any_unreachable) return static_cast<int>(ExitCode::unreachable);
  const auto& req = summary.requests;
  const int64_t connect_errors =
      summary.errors.count("connect_error") ? summary.errors.at("connect_error") : 0;
  if (req.ok == 0 && connect_errors > 0) return static_cast<int>(ExitCode::unreachable);
  if (pc.max_error_rate >= 0 && req.total > 0 &&
      static_cast<double>(req.failed) / static_cast<double>(req.total) > pc.max_error_rate) {
    fmt::print(stderr, "servebench: error rate above --max-error-rate\n");
    return static_cast<int>(ExitCode::error_rate);
  }
  return res.interrupted ? static_cast<int>(ExitCode::interrupted) : 0;
}

}  // namespace

int run_distributed_prof(int argc, char** argv) {
  Session mpi(&argc, &argv);
  try {
    return run(mpi, argc, argv);
  } catch (const Error& e) {
    fmt::print(stderr, "servebench: rank {}: {}\n", mpi.rank(), e.what());
    std::fflush(stderr);
    mpi.abort(static_cast<int>(e.code()));
  } catch (const std::exception& e) {
    fmt::print(stderr, "servebench: rank {}: internal error: {}\n", mpi.rank(), e.what());
    std::fflush(stderr);
    mpi.abort(static_cast<int>(ExitCode::failure));
  }
}

}  // namespace sb::mpi
