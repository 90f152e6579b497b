#include "cli/prof_command.h"

#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/prof_options.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "common/error.h"
#include "engine/config_json.h"
#include "engine/engine.h"
#include "metrics/run_summary.h"
#include "report/request_log.h"
#include "report/request_log_read.h"
#include "report/run_outputs.h"
#include "report/terminal_summary.h"
#include "sim/server.h"

namespace sb::cli {

std::string default_output_dir(const engine::EngineConfig& c) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("runs/{:04}{:02}{:02}-{:02}{:02}{:02}-{}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     protocol::to_string(c.adapter.api));
}

metrics::RunInfo run_info(const ProfConfig& pc, const engine::RunResult& r) {
  return engine::run_info(pc.engine, r, pc.sim_preset, pc.slo);
}

namespace {

int run_prof(const ProfFlags& flags) {
  ProfConfig pc = to_prof_config(flags);

  // --sim: an in-process simulator on an ephemeral loopback port.
  std::unique_ptr<sim::Server> simulator;
  if (!pc.sim_preset.empty()) {
    sim::SimConfig sc = sim::preset_config(pc.sim_preset);
    sc.host = "127.0.0.1";
    sc.port = 0;
    sc.time_scale = pc.sim_time_scale;
    if (pc.sim_seed) sc.seed = *pc.sim_seed;
    simulator = std::make_unique<sim::Server>(sc);
    simulator->start();
    pc.engine.client.url = net::parse_url(simulator->url());
    if (!flags.quiet)
      fmt::print(stderr, "servebench: embedded simulator '{}' at {}\n", pc.sim_preset,
                 simulator->url());
    engine::validate(pc.engine);
  }

  const std::string dir = pc.output_dir.empty() ? default_output_dir(pc.engine) : pc.output_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw usage_error(fmt::format("--output-dir '{}': cannot create it ({})", dir, ec.message()));
  report::RequestLog log(dir);
  RunTelemetry telemetry(
      flags.telemetry, simulator ? simulator->url() + "/metrics" : "",
      engine::effective_workers(pc.engine),
      pc.sim_preset.empty() ? pc.engine.client.url.host_header() : "sim:" + pc.sim_preset,
      fmt::format("in{}/out{}", pc.engine.workload.input_tokens, pc.engine.workload.output_tokens));

  const std::atomic<bool>& stop = install_stop_handlers();
  ProgressPrinter progress(stderr);
  engine::RunHooks hooks;
  hooks.on_record = [&log](const metrics::RequestRecord& r) { log.append(r); };
  hooks.keep_records = false;  // read back from requests.jsonl below: memory stays flat
  hooks.stop = &stop;
  if (!pc.no_progress) hooks.on_progress = [&](const engine::LiveTotals& t) { progress.update(t); };
  telemetry.attach(hooks);

  engine::RunResult result = engine::run_benchmark(pc.engine, hooks);
  progress.finish();
  log.close();
  result.records = report::read_back_run_records(log.path());
  nlohmann::json telemetry_json = telemetry.finish(dir);
  if (simulator) simulator->stop();

  metrics::RunInfo info = run_info(pc, result);
  info.telemetry = std::move(telemetry_json);
  const metrics::RunSummary summary = metrics::summarize_run(result.records, info);
  report::write_run_outputs(dir, summary, info);
  if (!pc.quiet) fmt::print("{}\n", report::format_terminal_summary(summary));
  fmt::print(stderr, "servebench: results in {}/ (summary.json, summary.csv, requests.jsonl)\n",
             dir);

  const auto& req = summary.requests;
  const int64_t connect_errors =
      summary.errors.count("connect_error") ? summary.errors.at("connect_error") : 0;
  if (req.ok == 0 && connect_errors > 0) {
    fmt::print(stderr, "servebench: the target was unreachable: {} connection errors, no success\n",
               connect_errors);
    return static_cast<int>(ExitCode::unreachable);
  }
  if (pc.max_error_rate >= 0 && req.total > 0) {
    const double rate = static_cast<double>(req.failed) / static_cast<double>(req.total);
    if (rate > pc.max_error_rate) {
      fmt::print(stderr, "servebench: error rate {:.2f}% is above --max-error-rate {:.2f}%\n",
                 rate * 100, pc.max_error_rate * 100);
      return static_cast<int>(ExitCode::error_rate);
    }
  }
  return result.interrupted ? static_cast<int>(ExitCode::interrupted) : 0;
}

}  // namespace

std::function<int()> add_prof_command(CLI::App& root) {
  auto* app = root.add_subcommand("prof", "Benchmark one inference endpoint");
  auto flags = std::make_shared<ProfFlags>();
  add_prof_flags(*app, *flags);
  return [flags] { return run_prof(*flags); };
}

}  // namespace sb::cli
