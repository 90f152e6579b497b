#include "plan/execute_run.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "engine/config_json.h"
#include "engine/engine.h"
#include "metrics/run_accumulator.h"
#include "net/url.h"
#include "plan/progress.h"
#include "plan/run_economics.h"
#include "predict/virtual_run.h"
#include "results/request_log.h"
#include "results/request_log_read.h"
#include "results/run_outputs.h"
#include "sim/metrics.h"
#include "sim/preset_file.h"
#include "sim/server.h"
#include "telemetry/prom_text.h"
#include "telemetry/server_scrape.h"
#include "telemetry/telemetry.h"

namespace sb::plan {
namespace {

std::optional<double> stat(const metrics::Distribution& d, double metrics::Distribution::*field) {
  if (d.empty()) return std::nullopt;
  return d.*field;
}

}  // namespace

sim::SimConfig sim_config_of(const SimTarget& target, int replica) {
  sim::SimConfig sc =
      target.choice ? sim::config_of(*target.choice) : sim::preset_or_file_config(target.preset);
  sc.server.host = "127.0.0.1";
  sc.server.port = 0;
  sc.server.time_scale = target.time_scale;
  sc.server.trace_in_memory = false;
  if (target.seed) sc.server.seed = *target.seed;
  if (target.reasoning_length > 0) sc.text.reasoning_length = target.reasoning_length;
  sc.server.seed += static_cast<uint64_t>(replica);
  sim::validate(sc);
  return sc;
}

SimTarget catalog_target(const sim::SimChoice& choice) {
  SimTarget t;
  t.choice = sim::resolved(choice);
  (void)sim::config_of(*t.choice);  // unknown names, tp, memory fit: at parse time
  t.preset = sim::label_of(*t.choice);
  return t;
}

RunSimulators::RunSimulators(const RunSpec& spec) {
  if (spec.sim.preset.empty() || spec.predict) return;
  for (int i = 0; i < std::max(1, spec.sim.replicas); ++i) {
    servers_.push_back(std::make_unique<sim::Server>(sim_config_of(spec.sim, i)));
    servers_.back()->start();
    urls_.push_back(servers_.back()->url());
  }
}

RunSimulators::~RunSimulators() {
  stop();
}

void RunSimulators::stop() {
  for (auto& s : servers_) s->stop();
}

std::vector<std::string> RunSimulators::metrics_urls() const {
  std::vector<std::string> out;
  for (const auto& u : urls_) out.push_back(u + "/metrics");
  return out;
}

engine::EngineConfig resolve_engine(const RunSpec& spec, const std::vector<std::string>& sim_urls) {
  engine::EngineConfig e = spec.engine;
  if (spec.provider) {
    apply_provider(*spec.provider, sim_urls, e);
  } else if (!sim_urls.empty()) {
    e.client.url = net::parse_url(sim_urls[0]);
    e.extra_endpoints.clear();
    for (size_t i = 1; i < sim_urls.size(); ++i)
      e.extra_endpoints.push_back(net::parse_url(sim_urls[i]));
  }
  engine::validate(e);
  return e;
}

metrics::RunInfo run_info(const RunSpec& spec, const engine::EngineConfig& e,
                          const engine::RunResult& r) {
  metrics::RunInfo info = engine::run_info(e, r, spec.sim.preset, spec.slo);
  if (!spec.sim.preset.empty()) {
    info.config["sim_time_scale"] = spec.sim.time_scale;
    if (spec.sim.seed) info.config["sim_seed"] = *spec.sim.seed;
    if (spec.sim.reasoning_length > 0)
      info.config["sim_reasoning_length"] = spec.sim.reasoning_length;
    if (spec.sim.replicas > 1) info.config["sim_replicas"] = spec.sim.replicas;
    if (const auto& ch = spec.sim.choice) {
      info.config["sim_gpu"] = ch->gpu;
      info.config["sim_model"] = ch->model;
      info.config["sim_engine"] = ch->engine;
      info.config["sim_dtype"] = ch->dtype;
      info.config["sim_tp"] = ch->tp;
    }
  }
  if (spec.max_error_rate >= 0) info.config["max_error_rate"] = spec.max_error_rate;
  if (spec.predict) info.config["predicted"] = true;
  for (const auto& [k, v] : spec.labels.items()) info.config[k] = v;
  return info;
}

std::unique_ptr<RunTelemetry> open_telemetry(const RunSpec& spec, const engine::EngineConfig& e,
                                             const RunSimulators& sims) {
  const std::string provider = !spec.provider_label.empty() ? spec.provider_label
                               : !spec.sim.preset.empty()   ? "sim:" + spec.sim.preset
                                                            : e.client.url.host_header();
  const std::string scenario =
      !e.workload.scenario.empty()
          ? e.workload.scenario
          : fmt::format("in{}/out{}", e.workload.input_tokens, e.workload.output_tokens);
  RunTelemetryConfig tc = spec.telemetry;
  tc.jsonl_path = spec.dir + "/telemetry.jsonl";  // streamed as sampled (kill -9 keeps it)
  if (!spec.sim.preset.empty() && spec.sim.time_scale < 1.0)  // samples per model second kept
    tc.samplers.interval = std::max<Nanos>(
        std::chrono::milliseconds(20),
        std::chrono::duration_cast<Nanos>(tc.samplers.interval * spec.sim.time_scale));
  return std::make_unique<RunTelemetry>(tc, sims.metrics_urls(), engine::effective_workers(e),
                                        provider, scenario);
}

int exit_code_of(const metrics::RunSummary& s, bool interrupted, double max_error_rate,
                 std::string* error, bool strict_client) {
  auto fail = [error](ExitCode code, std::string why) {
    if (error) *error = std::move(why);
    return static_cast<int>(code);
  };
  if (interrupted) return fail(ExitCode::interrupted, "interrupted");
  const auto it = s.errors.find("connect_error");
  const int64_t connect_errors = it == s.errors.end() ? 0 : it->second;
  if (s.requests.ok == 0 && connect_errors > 0)
    return fail(ExitCode::unreachable,
                fmt::format("the target was unreachable: {} of {} requests failed to connect, "
                            "none succeeded",
                            connect_errors, s.requests.total));
  if (max_error_rate >= 0 && s.requests.total > 0) {
    const double rate =
        static_cast<double>(s.requests.failed) / static_cast<double>(s.requests.total);
    if (rate > max_error_rate)
      return fail(ExitCode::error_rate,
                  fmt::format("error rate {:.2f}% is above --max-error-rate {:.2f}%", rate * 100,
                              max_error_rate * 100));
  }
  if (strict_client && s.client_health.client_limited)
    return fail(ExitCode::client_limited,
                fmt::format("the client was the bottleneck (--strict-client): {}",
                            s.client_health.reasons.front()));
  return 0;
}

RunOutcome outcome_of(metrics::RunSummary summary, bool interrupted, const RunSpec& spec) {
  RunOutcome out;
  out.headline = headline_of(summary);
  out.slo_met = slo_met(summary, spec.slo, spec.sim.preset.empty() ? 1.0 : spec.sim.time_scale);
  out.interrupted = interrupted;
  out.exit_code =
      exit_code_of(summary, interrupted, spec.max_error_rate, &out.error, spec.strict_client);
  out.ok = out.exit_code == 0 || out.exit_code == static_cast<int>(ExitCode::error_rate) ||
           out.exit_code == static_cast<int>(ExitCode::client_limited);
  out.summary = std::move(summary);
  return out;
}

Headline headline_of(const metrics::RunSummary& s) {
  Headline h;
  h.requests = s.requests.total;
  h.ok = s.requests.ok;
  h.failed = s.requests.failed;
  using D = metrics::Distribution;
  h.ttft_p50_ms = stat(s.metrics.ttft_ms, &D::p50);
  h.ttft_p99_ms = stat(s.metrics.ttft_ms, &D::p99);
  h.e2e_p50_ms = stat(s.metrics.e2e_ms, &D::p50);
  h.e2e_p99_ms = stat(s.metrics.e2e_ms, &D::p99);
  h.tpot_p99_ms = stat(s.metrics.tpot_ms, &D::p99);
  h.qps = s.throughput.requests_per_s;
  h.output_tokens_per_s = s.throughput.output_tokens_per_s;
  h.goodput_fraction = s.goodput.fraction;
  h.error_rate =
      h.requests > 0 ? static_cast<double>(h.failed) / static_cast<double>(h.requests) : 1.0;
  return h;
}

bool slo_met(const metrics::RunSummary& s, const metrics::Slo& slo, double time_scale) {
  auto within = [time_scale](const metrics::Distribution& d, const std::optional<double>& bound) {
    return !bound || (!d.empty() && d.p99 / time_scale <= *bound);
  };
  return within(s.metrics.ttft_ms, slo.ttft_ms) && within(s.metrics.e2e_ms, slo.e2e_ms) &&
         (!slo.tpot_ms || s.metrics.tpot_ms.empty() ||
          s.metrics.tpot_ms.p99 / time_scale <= *slo.tpot_ms);
}

namespace {

// The predicted run of `spec` (RunSpec::predict): its simulators' configs in virtual time.
// `e` is resolved against placeholder addresses, one per replica (nothing listens on them).
// The simulators' /metrics pages, made every telemetry interval of model time (as data: what
// parsing the live page gives, sim/metrics.h), go through the live scrape's ingestion into
// telemetry.jsonl and `*telemetry` (as a live run's server telemetry; no GPU or host is sampled).
// A run of more than kMaxPredictedSamples intervals of model time samples coarser from there
// (VirtualHooks::max_samples): every 2, 4, 8 ... intervals, what it kept so far thinned to the
// same grid, so that a run modelling days keeps a few thousand samples per series.
constexpr size_t kMaxPredictedSamples = 3600;
engine::RunResult predict_run(const RunSpec& spec, const engine::EngineConfig& e,
                              results::RequestLog& log, const std::atomic<bool>* stop,
                              nlohmann::json* telemetry) {
  std::vector<sim::SimConfig> replicas;
  for (int i = 0; i < std::max(1, spec.sim.replicas); ++i)
    replicas.push_back(sim_config_of(spec.sim, i));
  telemetry::SeriesStore store;
  std::vector<telemetry::PageIngest> ingest;
  for (size_t i = 0; i < replicas.size(); ++i)
    ingest.emplace_back(telemetry::server_source(i, replicas.size()));
  std::vector<int64_t> samples(replicas.size(), 0);
  predict::VirtualHooks hooks;
  hooks.on_record = [&log](const metrics::RequestRecord& r) { log.append(r); };
  hooks.keep_records = false;
  hooks.stop = stop;
  hooks.sample_interval = spec.telemetry.samplers.interval;
  hooks.on_sample = [&](size_t i, int64_t t_ns, const PromPage& page) {
    ingest[i].ingest(page, t_ns, store);
    ++samples[i];
  };
  Nanos interval = hooks.sample_interval;  // the interval of what is kept
  hooks.max_samples = kMaxPredictedSamples;
  hooks.on_coarser = [&](Nanos finer) {
    store.halve_resolution(finer.count(), [](const telemetry::SeriesMeta& m) {
      return sim::SimMetrics::mean_since_last_scrape(m.name);
    });
    for (int64_t& n : samples) n = (n + 1) / 2;  // k = 0, 2, ..., max_samples kept
    interval = 2 * finer;
  };
  engine::RunResult result = predict::run_virtual(e, replicas, hooks);
  nlohmann::json sources = nlohmann::json::array();
  for (size_t i = 0; i < replicas.size(); ++i)
    sources.push_back({{"kind", "server"},
                       {"url", fmt::format("predicted:{}", ingest[i].source())},
                       {"ok", samples[i]},
                       {"failed", 0}});
  *telemetry = telemetry::telemetry_block(interval, std::move(sources), store, false, {});
  if (!store.write_jsonl(spec.dir + "/telemetry.jsonl"))
    fmt::print(stderr, "servebench: cannot write {}/telemetry.jsonl\n", spec.dir);
  return result;
}

// Closes the request log; its write failure (disk full, I/O error: sb::Error io_error), or ""
// when none. Every complete line stays on disk, so the run goes on to summarize it.
std::string close_request_log(results::RequestLog& log) {
  try {
    log.close();
  } catch (const Error& err) {
    if (err.code() != ExitCode::io_error) throw;
    return err.what();
  }
  return "";
}

// Writes summary.json and summary.csv; why they could not be ("" when written).
std::string try_write_run_outputs(const std::string& dir, const metrics::RunSummary& summary,
                                  const metrics::RunInfo& info) {
  try {
    results::write_run_outputs(dir, summary, info);
  } catch (const Error& err) {
    return err.what();
  }
  return "";
}

// A run whose results were not all written exits io_error; its message says what is on disk.
// Without summary.json there is no summary to show (it stays in requests.jsonl).
void mark_io_error(RunOutcome& out, const std::string& log_error, const std::string& outputs_error,
                   const std::string& dir) {
  out.ok = false;
  out.exit_code = static_cast<int>(ExitCode::io_error);
  if (outputs_error.empty()) {
    out.error = fmt::format("{}; summary.json was written from the {} requests on disk", log_error,
                            out.headline.requests);
    return;
  }
  out.error = fmt::format(
      "{}{}the summary could not be written: {}; once the disk has room, `servebench summarize "
      "{}` rebuilds it from the requests on disk",
      log_error, log_error.empty() ? "" : "; ", outputs_error, dir);
  out.summary.reset();
}

std::vector<std::string> placeholder_urls(const RunSpec& spec) {
  if (spec.sim.preset.empty())
    throw usage_error(
        "predict needs a simulated target: --sim PRESET (prof, sweep) or providers with "
        "`sim:` (run); a real server cannot be predicted");
  return std::vector<std::string>(static_cast<size_t>(std::max(1, spec.sim.replicas)),
                                  "http://127.0.0.1:9");
}

// The run's summary with its energy and cost, from the requests.jsonl it has just written and
// closed, in one pass that holds no records (metrics/run_accumulator.h): memory stays flat
// however long the run. Every line is whole then, so one that does not read back is a bug,
// said on stderr rather than hidden.
metrics::RunSummary summarize_log(const std::string& path, const RunSpec& spec,
                                  metrics::RunInfo& info) {
  std::optional<metrics::RunAccumulator> acc(std::in_place, info);
  EconomicsWindow window;
  const results::RequestLogScan scan = results::scan_request_log(
      path,
      [&](const metrics::RequestRecord& r) {
        acc->add(r);
        window.add(r);
      },
      [&] {
        acc.emplace(info);
        window = {};
      });
  if (scan.skipped_lines > 0)
    fmt::print(stderr, "servebench: warning: {} line(s) of {} did not read back ({})\n",
               scan.skipped_lines, path, scan.first_error);
  metrics::RunSummary summary = acc->finish(info);
  add_economics(spec, window, summary, info);  // energy, cost (telemetry.jsonl)
  return summary;
}

}  // namespace

RunOutcome execute_run(const RunSpec& spec, const std::atomic<bool>* stop) {
  RunOutcome out;
  try {
    RunSimulators sims(spec);
    const engine::EngineConfig e =
        resolve_engine(spec, spec.predict ? placeholder_urls(spec) : sims.urls());
    std::error_code ec;
    std::filesystem::create_directories(spec.dir, ec);
    if (ec) throw usage_error(fmt::format("cannot create '{}' ({})", spec.dir, ec.message()));
    results::RequestLog log(spec.dir);
    std::string log_error;  // a failed write of requests.jsonl: the run still summarizes it
    engine::RunResult result;
    nlohmann::json telemetry_json;
    if (spec.predict) {
      result = predict_run(spec, e, log, stop, &telemetry_json);
      log_error = close_request_log(log);
    } else {
      const std::unique_ptr<RunTelemetry> telemetry = open_telemetry(spec, e, sims);
      ProgressPrinter progress(stderr);
      engine::RunHooks hooks;
      hooks.on_record = [&log](const metrics::RequestRecord& r) { log.append(r); };
      hooks.keep_records = false;  // memory stays flat however long the run; read back below
      hooks.stop = stop;
      if (spec.print_progress)
        hooks.on_progress = [&progress](const engine::LiveTotals& t) { progress.update(t); };
      telemetry->attach(hooks);
      result = engine::run_benchmark(e, hooks);
      progress.finish();
      log_error = close_request_log(log);
      telemetry_json = telemetry->finish(spec.dir);
      sims.stop();
    }
    metrics::RunInfo info = run_info(spec, e, result);
    info.telemetry = std::move(telemetry_json);
    if (!log_error.empty()) info.config["request_log_error"] = log_error;
    metrics::RunSummary summary = summarize_log(log.path(), spec, info);
    const std::string outputs_error = try_write_run_outputs(spec.dir, summary, info);
    out = outcome_of(std::move(summary), result.interrupted, spec);
    if (!log_error.empty() || !outputs_error.empty())
      mark_io_error(out, log_error, outputs_error, spec.dir);
  } catch (const Error& err) {
    out.ok = false;
    out.exit_code = static_cast<int>(err.code());
    out.error = err.what();
  } catch (const std::exception& err) {
    out.ok = false;
    out.exit_code = static_cast<int>(ExitCode::failure);
    out.error = fmt::format("internal error: {}", err.what());
  }
  return out;
}

void check_predictable(const RunSpec& spec) {
  (void)placeholder_urls(spec);
  predict::check_modelled(spec.engine);
}

}  // namespace sb::plan
