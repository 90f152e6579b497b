#include "cli/sweep_command.h"

#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/prof_options.h"
#include "cli/signals.h"
#include "common/error.h"
#include "common/units.h"
#include "common/wall_clock.h"
#include "plan/plan_runner.h"
#include "plan/run_executor.h"
#include "results/output_dir.h"

namespace sb::cli {
namespace {

struct SweepFlags {
  ProfFlags prof;
  bool until_saturation = false;
  double min_gain = 0.05, latency_climb = 0.10, saturation_max_errors = 0.05, factor = 2;
  int64_t max_level = 512;
  std::string rate_search;
  int rate_search_steps = 4;
  std::string requests_per_level;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = s.find(',', pos);
    const size_t end = comma == std::string::npos ? s.size() : comma;
    out.push_back(s.substr(pos, end - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

int run_sweep(const SweepFlags& f, plan::RunExecutor& exec) {
  if (!f.prof.trace.empty())
    throw usage_error(
        "--trace replays a trace at its own times, one run: use `servebench prof --trace` "
        "(or `predict prof`), not sweep");
  if (!f.prof.session_concurrency.empty())
    throw usage_error(
        "--session-concurrency runs sessions at their own concurrency, one run: use "
        "`servebench prof --session-concurrency`, not sweep");
  const bool rate = !f.prof.request_rate.empty();
  const bool rate_search = !f.rate_search.empty();
  plan::Stage stage;
  stage.name = "sweep";
  stage.kind = plan::StageKind::sweep;
  // Levels: parsed one by one so that a bad item is named.
  if (rate && rate_search)
    throw usage_error(
        "--request-rate and --rate-search exclude each other (the search picks the rates)");
  if (rate_search && f.until_saturation)
    throw usage_error(
        "--until-saturation (concurrency) and --rate-search (rate) exclude each other");
  if (rate) {
    if (f.until_saturation)
      throw usage_error(
          "--until-saturation raises concurrency; for rates use --rate-search LOW:HIGH");
    for (const auto& item : split_commas(f.prof.request_rate)) {
      const double r = parse_rate_per_s(item, "--request-rate");
      if (!stage.request_rate.empty() && r <= stage.request_rate.back())
        throw usage_error(
            fmt::format("--request-rate {}: list the rates in rising order", f.prof.request_rate));
      stage.request_rate.push_back(r);
    }
  } else if (!rate_search) {
    for (const auto& item : split_commas(f.prof.concurrency.empty() ? "1" : f.prof.concurrency)) {
      const int64_t c = parse_count(item, "--concurrency");
      if (c < 1) throw usage_error("--concurrency: every level must be at least 1");
      if (!stage.concurrency.empty() && c <= stage.concurrency.back())
        throw usage_error(
            fmt::format("--concurrency {}: list the levels in rising order", f.prof.concurrency));
      stage.concurrency.push_back(c);
    }
  }
  if (rate_search) {
    const auto colon = f.rate_search.find(':');
    if (colon == std::string::npos)
      throw usage_error(fmt::format(
          "--rate-search '{}': expected LOW:HIGH in requests/s, e.g. 1:64", f.rate_search));
    plan::RateSearchOptions o;
    o.low = parse_rate_per_s(f.rate_search.substr(0, colon), "--rate-search");
    o.high = parse_rate_per_s(f.rate_search.substr(colon + 1), "--rate-search");
    if (o.high <= o.low) throw usage_error("--rate-search LOW:HIGH: HIGH must be above LOW");
    if (f.rate_search_steps < 1) throw usage_error("--rate-search-steps: at least 1");
    o.steps = f.rate_search_steps;
    stage.rate_search = o;
  }
  stage.until_saturation = f.until_saturation;
  stage.saturation.min_gain = f.min_gain;
  stage.saturation.latency_climb = f.latency_climb;
  stage.saturation.max_error_rate = f.saturation_max_errors;
  stage.saturation.factor = f.factor;
  stage.saturation.max_level = static_cast<double>(f.max_level);
  if (f.until_saturation && stage.concurrency.size() > 1)
    stage.saturation.levels.assign(stage.concurrency.begin(), stage.concurrency.end());
  if (f.factor <= 1) throw usage_error("--saturation-factor: must be above 1 (e.g. 2)");

  // Everything else as prof would: converted and validated with the first level.
  ProfFlags one = f.prof;
  one.concurrency = rate || rate_search
                        ? ""
                        : std::to_string(stage.concurrency.empty() ? 1 : stage.concurrency.front());
  one.request_rate = rate          ? std::to_string(stage.request_rate.front())
                     : rate_search ? std::to_string(stage.rate_search->low)
                                   : "";
  if (!f.requests_per_level.empty()) {
    if (!f.prof.num_requests.empty())
      throw usage_error("--requests-per-level and --num-requests exclude each other");
    stage.requests_per_level = parse_count(f.requests_per_level, "--requests-per-level");
    if (stage.requests_per_level < 1) throw usage_error("--requests-per-level: at least 1");
    one.num_requests = "1";
  }
  const ProfConfig pc = to_prof_config(one);
  const engine::LoadConfig& load = pc.run.engine.load;
  if (stage.requests_per_level == 0) stage.num_requests = load.num_requests;
  stage.duration_s = to_s(load.duration);
  stage.max_concurrency = load.max_concurrency;

  // Every level is prof's one run (the same spec: simulator and seed, telemetry, SLOs),
  // at its own load.
  plan::StageTarget t;
  t.base = pc.run;
  const bool searching = f.until_saturation || rate_search;
  // --max-error-rate: as prof (exit 4) for listed levels; a search's stability limit instead.
  if (searching) t.base.max_error_rate = -1;
  t.provider = pc.run.sim.preset.empty() ? pc.run.engine.client.url.host_header()
                                         : "sim:" + pc.run.sim.preset;
  t.base.provider_label = t.provider;
  t.scenario = pc.run.engine.workload.scenario;
  t.max_error_rate = pc.run.max_error_rate >= 0 ? pc.run.max_error_rate : 1.0;
  if (f.until_saturation) t.max_error_rate = std::min(t.max_error_rate, f.saturation_max_errors);
  t.base.print_progress = false;  // one line per level instead

  // The folder (named by the leader's clock), created by the leader; a non-empty -o folder
  // only with --overwrite.
  const std::string dir = exec.on_leader([&] {
    if (pc.output_dir.empty()) return create_default_run_dir("sweep");
    results::prepare_output_dir(pc.output_dir, pc.overwrite);
    return pc.output_dir;
  });
  plan::PlanIndex index(dir, "sweep");
  plan::StageRunContext ctx;
  ctx.out_dir = dir;
  ctx.quiet = pc.quiet;
  ctx.stop = exec.plan_stop(&install_stop_handlers());
  ctx.index = &index;
  ctx.executor = &exec;
  plan::run_stage(stage, t, ctx);
  if (exec.leader()) {
    index.write(true);
    if (!pc.quiet) fmt::print("{}", index.comparison_table());
    fmt::print(stderr, "servebench: {} runs in {}/ (index.json, index.csv)\n", index.runs().size(),
               dir);
  }
  if (ctx.stop->load()) return static_cast<int>(ExitCode::interrupted);
  return ctx.first_failure;
}

}  // namespace

std::function<int(plan::RunExecutor&)> add_sweep_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "sweep", "Benchmark one endpoint at several load levels, or search for its saturation point");
  auto f = std::make_shared<SweepFlags>();
  add_prof_flags(*app, f->prof);
  app->add_flag("--until-saturation", f->until_saturation,
                "Raise concurrency (x --saturation-factor) until throughput stops growing, an SLO "
                "(--goodput) breaks or errors exceed --saturation-max-errors");
  app->add_option("--saturation-min-gain", f->min_gain,
                  "Throughput gain below this fraction is flat")
      ->capture_default_str();
  app->add_option("--saturation-latency-climb", f->latency_climb,
                  "...while median e2e latency rises by more than this fraction")
      ->capture_default_str();
  app->add_option("--saturation-max-errors", f->saturation_max_errors,
                  "Error-rate limit of a stable level")
      ->capture_default_str();
  app->add_option("--saturation-factor", f->factor, "Multiply concurrency by this each step")
      ->capture_default_str();
  app->add_option("--saturation-max-concurrency", f->max_level, "Highest concurrency to try")
      ->capture_default_str();
  app->add_option("--rate-search", f->rate_search,
                  "Bisection on request rate LOW:HIGH (requests/s) against the SLOs (--goodput)");
  app->add_option("--rate-search-steps", f->rate_search_steps, "Bisection steps")
      ->capture_default_str();
  app->add_option("--requests-per-level", f->requests_per_level,
                  "Measured requests per level = this x the level (acs-bench: 10x concurrency)");
  return [f](plan::RunExecutor& exec) { return run_sweep(*f, exec); };
}

}  // namespace sb::cli
