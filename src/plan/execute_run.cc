#include "plan/execute_run.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "engine/config_json.h"
#include "engine/engine.h"
#include "net/url.h"
#include "report/request_log.h"
#include "report/request_log_read.h"
#include "report/run_outputs.h"
#include "sim/server.h"

namespace sb::plan {
namespace {

std::optional<double> stat(const metrics::Distribution& d, double metrics::Distribution::*field) {
  if (d.empty()) return std::nullopt;
  return d.*field;
}

}  // namespace

RunSimulators::RunSimulators(const RunSpec& spec) {
  if (spec.sim_preset.empty()) return;
  for (int i = 0; i < std::max(1, spec.sim_replicas); ++i) {
    sim::SimConfig sc = sim::preset_config(spec.sim_preset);
    sc.host = "127.0.0.1";
    sc.port = 0;
    sc.time_scale = spec.sim_time_scale;
    sc.trace_in_memory = false;
    sc.seed += static_cast<uint64_t>(i);
    servers_.push_back(std::make_unique<sim::Server>(sc));
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
  metrics::RunInfo info = engine::run_info(e, r, spec.sim_preset, spec.slo);
  for (const auto& [k, v] : spec.labels.items()) info.config[k] = v;
  return info;
}

RunOutcome outcome_of(metrics::RunSummary summary, bool interrupted, const metrics::Slo& slo) {
  RunOutcome out;
  out.headline = headline_of(summary);
  out.slo_met = slo_met(summary, slo);
  out.summary = std::move(summary);
  out.interrupted = interrupted;
  out.ok = !interrupted;
  if (interrupted) {
    out.exit_code = static_cast<int>(ExitCode::interrupted);
    out.error = "interrupted";
  } else if (out.headline.ok == 0 && out.headline.requests > 0) {
    const auto& errs = out.summary->errors;
    if (errs.count("connect_error") && errs.at("connect_error") == out.headline.requests) {
      out.ok = false;
      out.exit_code = static_cast<int>(ExitCode::unreachable);
      out.error = "the target was unreachable: every request failed to connect";
    }
  }
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

bool slo_met(const metrics::RunSummary& s, const metrics::Slo& slo) {
  auto within = [](const metrics::Distribution& d, const std::optional<double>& bound) {
    return !bound || (!d.empty() && d.p99 <= *bound);
  };
  return within(s.metrics.ttft_ms, slo.ttft_ms) && within(s.metrics.e2e_ms, slo.e2e_ms) &&
         (!slo.tpot_ms || s.metrics.tpot_ms.empty() || s.metrics.tpot_ms.p99 <= *slo.tpot_ms);
}

RunOutcome execute_run(const RunSpec& spec, const std::atomic<bool>* stop) {
  RunOutcome out;
  try {
    RunSimulators sims(spec);
    const engine::EngineConfig e = resolve_engine(spec, sims.urls());
    std::error_code ec;
    std::filesystem::create_directories(spec.dir, ec);
    if (ec) throw usage_error(fmt::format("cannot create '{}' ({})", spec.dir, ec.message()));
    report::RequestLog log(spec.dir);
    engine::RunHooks hooks;
    hooks.on_record = [&log](const metrics::RequestRecord& r) { log.append(r); };
    hooks.keep_records = false;  // a soak stage's memory stays flat; read back below
    hooks.stop = stop;
    engine::RunResult result = engine::run_benchmark(e, hooks);
    log.close();
    result.records = report::read_back_run_records(log.path());
    sims.stop();
    const metrics::RunInfo info = run_info(spec, e, result);
    metrics::RunSummary summary = metrics::summarize_run(result.records, info);
    report::write_run_outputs(spec.dir, summary, info);
    out = outcome_of(std::move(summary), result.interrupted, spec.slo);
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

}  // namespace sb::plan
