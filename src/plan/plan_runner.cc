#include "plan/plan_runner.h"

#include <cmath>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "common/redact.h"
#include "plan/launcher.h"
#include "protocol/adapter.h"
#include "report/load_rules.h"

namespace sb::plan {
namespace {

namespace fs = std::filesystem;

bool stopped(const std::atomic<bool>* stop) {
  return stop && stop->load();
}

std::string level_tag(bool rate, double level) {
  return rate ? fmt::format("r{:g}", level) : fmt::format("c{:g}", level);
}

// Sleeps up to `s` seconds, waking early on stop.
void cooldown(double s, const std::atomic<bool>* stop) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
  while (std::chrono::steady_clock::now() < until && !stopped(stop))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

RunExecutor& executor_of(RunExecutor* e) {
  static RunExecutor local;  // stateless: runs in this process
  return e ? *e : local;
}

bool leads(const StageRunContext& ctx) {
  return executor_of(ctx.executor).leader();
}

void write_index(const StageRunContext& ctx, bool finished) {
  if (leads(ctx)) ctx.index->write(finished);
}

int64_t scaled(int64_t n, double scale) {
  return n <= 0 ? n
                : std::max<int64_t>(
                      1, static_cast<int64_t>(std::ceil(static_cast<double>(n) * scale)));
}

// Runs the stage at one load level; records the row. Nullopt when interrupted before it ran.
std::optional<LevelMeasure> run_level(const Stage& stage, const StageTarget& t,
                                      StageRunContext& ctx, bool rate, double level,
                                      bool first_of_stage) {
  if (stopped(ctx.stop) || ctx.target_dead) return std::nullopt;
  if (ctx.runs_done > 0 && ctx.cooldown_s > 0 && executor_of(ctx.executor).real_time() &&
      (stage.kind != StageKind::ramp || first_of_stage))
    cooldown(ctx.cooldown_s, ctx.stop);
  if (stopped(ctx.stop)) return std::nullopt;
  RunSpec spec = t.base;
  auto& l = spec.engine.load;
  if (rate) {
    l.mode = engine::LoadMode::open;
    l.request_rate = level;
    l.max_concurrency = stage.max_concurrency;
  } else {
    l.mode = engine::LoadMode::closed;
    l.concurrency = static_cast<int64_t>(level);
    l.rate_pattern = {};  // a plan's defaults shape its open-loop stages only
  }
  int64_t n = stage.num_requests;
  if (n == 0 && stage.requests_per_level > 0)
    n = static_cast<int64_t>(std::ceil(static_cast<double>(stage.requests_per_level) * level));
  l.num_requests = scaled(n, ctx.scale);
  // However far --scale shortens the plan, a closed-loop level keeps the requests per stream
  // that make its throughput a rate (report::kMinRequestsPerClient), as far as the unscaled
  // plan had them.
  if (!rate && l.num_requests > 0 && ctx.scale < 1.0)
    l.num_requests =
        std::max(l.num_requests, std::min(n, report::kMinRequestsPerClient * l.concurrency));
  l.duration = from_s(stage.duration_s * ctx.scale);
  l.warmup = scaled(stage.warmup.value_or(l.warmup), ctx.scale);
  if (stage.input_length) spec.engine.workload.input_tokens = *stage.input_length;
  if (stage.output_length) spec.engine.workload.output_tokens = *stage.output_length;
  if (!stage.goodput.empty()) spec.slo = metrics::parse_goodput_flags(stage.goodput);
  const std::string folder = ctx.folder_prefix + level_tag(rate, level);
  spec.dir = (fs::path(ctx.out_dir) / folder).string();
  spec.telemetry.announce = ctx.runs_done == 0;
  spec.labels["provider"] = t.provider;
  spec.labels["max_error_rate"] = t.max_error_rate;  // the stability limit the report uses
  if (!t.scenario.empty()) spec.labels["scenario"] = t.scenario;
  spec.labels["stage"] = stage.name;
  spec.labels["stage_kind"] = std::string(to_string(stage.kind));
  if (t.cold_start_s) spec.labels["cold_start_s"] = *t.cold_start_s;

  const RunOutcome out = executor_of(ctx.executor).execute(spec, ctx.stop);
  ++ctx.runs_done;
  IndexRow row;
  row.provider = t.provider;
  row.scenario = t.scenario;
  row.stage = stage.name;
  row.kind = std::string(to_string(stage.kind));
  row.load_kind = rate ? "rate" : "concurrency";
  row.load_level = level;
  row.folder = folder;
  row.cold_start_s = t.cold_start_s;
  row.headline = out.headline;
  row.status = out.ok ? "ok" : out.interrupted ? "interrupted" : "failed";
  row.error = out.error;
  row.slo_met = out.slo_met;
  ctx.index->add(row);
  write_index(ctx, false);

  const std::string what = fmt::format(
      "{} {}{}{} {}", t.provider, t.scenario.empty() ? "" : t.scenario + " ", stage.name, "",
      rate ? fmt::format("rate={:g}/s", level) : fmt::format("c={:g}", level));
  if (ctx.first_failure == 0 && (!out.ok || out.exit_code != 0))
    ctx.first_failure = out.exit_code != 0 ? out.exit_code : 1;
  if (!out.ok) {
    if (leads(ctx))
      fmt::print(stderr, "servebench: run {} failed: {}\n", what, redact_text(out.error));
    if (out.exit_code == static_cast<int>(ExitCode::unreachable)) ctx.target_dead = true;
  } else if (!ctx.quiet && leads(ctx)) {
    const Headline& h = out.headline;
    fmt::print(stderr,
               "servebench: {:<40} {:>8.2f} req/s  p99 e2e {:>8.0f} ms  p99 ttft {:>7.0f} ms  "
               "errors {:.1f}%  -> {}\n",
               what, h.qps.value_or(0), h.e2e_p99_ms.value_or(0), h.ttft_p99_ms.value_or(0),
               h.error_rate * 100, folder);
  }
  if (out.interrupted) return std::nullopt;
  LevelMeasure m;
  m.level = level;
  m.failed = !out.ok;
  m.qps = out.headline.qps.value_or(0);
  m.latency_ms = out.headline.e2e_p50_ms.value_or(0);
  m.error_rate = out.headline.error_rate;
  m.slo_ok = row.slo_met;
  m.sustained = report::sustained_rate(!rate, out.headline.requests, level);
  m.folder = folder;
  return m;
}

}  // namespace

void run_stage(const Stage& stage, const StageTarget& t, StageRunContext& ctx) {
  bool first = true;
  auto measure = [&](bool rate) {
    return [&, rate](double level) {
      auto m = run_level(stage, t, ctx, rate, level, first);
      first = false;
      return m;
    };
  };
  SearchRow search;
  search.provider = t.provider;
  search.scenario = t.scenario;
  search.stage = stage.name;
  if (stage.until_saturation) {
    SaturationOptions o = stage.saturation;
    o.max_error_rate = std::min(o.max_error_rate, t.max_error_rate);
    const SaturationResult r =
        search_saturation(static_cast<double>(stage.concurrency.front()), o, measure(false));
    search.kind = "saturation";
    search.knee = r.knee;
    search.peak_qps = r.peak_qps;
    search.peak_level = r.peak_level;
    search.max_stable = r.max_stable;
    search.one_wave = r.one_wave;
    search.stop_reason = r.stop_reason;
  } else if (stage.rate_search) {
    RateSearchOptions o = *stage.rate_search;
    o.max_error_rate = t.max_error_rate;
    const RateSearchResult r = bisect_rate(o, measure(true));
    search.kind = "rate_search";
    search.max_stable = r.max_stable_rate;
    for (const auto& p : r.points)
      if (!p.failed && p.qps > search.peak_qps) {
        search.peak_qps = p.qps;
        search.peak_level = p.level;
      }
    search.stop_reason = r.stop_reason;
  } else {
    const bool rate = !stage.request_rate.empty();
    const size_t n = rate ? stage.request_rate.size() : stage.concurrency.size();
    for (size_t i = 0; i < n; ++i) {
      const double level = rate ? stage.request_rate[i] : static_cast<double>(stage.concurrency[i]);
      if (!measure(rate)(level)) break;
    }
    return;
  }
  ctx.index->add(search);
  write_index(ctx, false);
  if (!ctx.quiet && leads(ctx))
    fmt::print(stderr,
               "servebench: {} {} {}: {} stopped ({}): knee {}, peak {:.2f} req/s at {:g}, max "
               "stable {}\n",
               t.provider, t.scenario, stage.name, search.kind, search.stop_reason,
               search.knee ? fmt::format("{:g}", *search.knee) : "-", search.peak_qps,
               search.peak_level,
               search.max_stable ? fmt::format("{:g}", *search.max_stable) : "-");
  if (!search.one_wave.empty() && !ctx.quiet && leads(ctx))
    fmt::print(stderr,
               "servebench: {} {} {}: concurrency {} sent fewer than {} requests per client (one "
               "wave, not a rate): not ranked as peak or knee; raise requests_per_level\n",
               t.provider, t.scenario, stage.name, fmt::join(search.one_wave, ", "),
               report::kMinRequestsPerClient);
}

namespace {

// Provider i's runs: its base (the defaults as prof reads them) pointed at the provider.
StageTarget target_of(const PlanRuns& runs, size_t i, const PlanRunOptions& o) {
  const Provider& p = runs.plan.providers.at(i);
  StageTarget t;
  t.provider = p.name;
  t.max_error_rate = runs.plan.defaults.max_error_rate;
  t.base = runs.bases.at(i);
  t.base.provider = &p;
  t.base.provider_label = p.name;
  t.base.sim.choice = p.sim_choice;  // its preset (p.sim) is in the base already (plan_defaults.h)
  t.base.sim.replicas = p.sim_replicas;
  if (o.sim_time_scale) t.base.sim.time_scale = *o.sim_time_scale;
  return t;
}

}  // namespace

int run_plan(const PlanRuns& runs, const PlanRunOptions& o) {
  const Plan& plan = runs.plan;
  RunExecutor& exec = executor_of(o.executor);
  const bool leader = exec.leader();
  PlanIndex index(o.output_dir, plan.name);
  exec.on_leader([&] {
    // A non-empty -o folder was refused (or allowed by --overwrite) by the command
    // (results/output_dir.h); the folder may be missing when a caller skipped that.
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec)
      throw usage_error(fmt::format("-o {}: cannot create it ({})", o.output_dir, ec.message()));
    index.write(false);
    return std::string();
  });

  StageRunContext ctx;
  ctx.out_dir = o.output_dir;
  ctx.cooldown_s = plan.defaults.cooldown_s * o.scale;
  ctx.scale = o.scale;
  ctx.quiet = o.quiet;
  ctx.stop = o.stop;
  ctx.index = &index;
  ctx.executor = o.executor;
  const std::vector<std::string> scenarios =
      plan.scenarios.empty() ? std::vector<std::string>{""} : plan.scenarios;

  int run_no = 0;
  for (size_t i = 0; i < plan.providers.size(); ++i) {
    const Provider& p = plan.providers[i];
    if (stopped(o.stop)) break;
    StageTarget t = target_of(runs, i, o);

    std::unique_ptr<Launcher> launcher;  // the leader's only: one server for every process
    if (p.launch) {
      if (leader)
        launcher = std::make_unique<Launcher>(
            *p.launch, (fs::path(o.output_dir) / (p.id + "-launch.log")).string());
      if (!o.quiet && leader)
        fmt::print(stderr, "servebench: launching provider {}: waiting for {}\n", p.name,
                   redact_url(p.launch->ready_url));
      try {
        t.cold_start_s =
            std::stod(exec.on_leader([&] { return fmt::format("{}", launcher->start()); }));
        if (!o.quiet && leader)
          fmt::print(stderr, "servebench: provider {} ready after {:.2f} s (cold start)\n", p.name,
                     *t.cold_start_s);
      } catch (const Error& err) {
        if (leader)
          fmt::print(stderr, "servebench: provider {}: {}\n", p.name, redact_text(err.what()));
        IndexRow row;
        row.provider = p.name;
        row.stage = "launch";
        row.kind = "launch";
        row.load_kind = "concurrency";
        row.status = "failed";
        row.slo_met = false;
        row.error = err.what();
        index.add(row);
        if (leader) index.write(false);
        if (ctx.first_failure == 0) ctx.first_failure = static_cast<int>(err.code());
        continue;
      }
    }
    ctx.target_dead = false;
    for (const std::string& sc : scenarios) {
      t.scenario = sc;
      t.base.engine.workload.scenario = sc;
      for (const Stage& s : plan.stages) {
        if (ctx.target_dead || stopped(o.stop)) break;
        ctx.folder_prefix =
            fmt::format("{:03}-{}-{}{}-", ++run_no, p.id, sc.empty() ? "" : sc + "-", s.name);
        run_stage(s, t, ctx);
      }
    }
    if (launcher) launcher->stop();
  }
  if (leader) {
    index.write(true);
    if (!o.quiet) fmt::print("{}", index.comparison_table());
    fmt::print(stderr, "servebench: plan '{}': {} runs, index in {}/index.json and index.csv\n",
               plan.name, index.runs().size(), o.output_dir);
  }
  if (stopped(o.stop)) return static_cast<int>(ExitCode::interrupted);
  return ctx.first_failure;
}

}  // namespace sb::plan
