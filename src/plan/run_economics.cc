#include "plan/run_economics.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/config.h"
#include "telemetry/power_log.h"

namespace sb::plan {
namespace {

using metrics::kNoTime;

bool simulated(const RunSpec& spec) {
  return !spec.sim.preset.empty();
}

double time_scale_of(const RunSpec& spec) {
  return simulated(spec) && spec.sim.time_scale > 0 ? spec.sim.time_scale : 1.0;
}

// The GPU telemetry's own description ("nvml (1 device: NVIDIA A10G)"), else `fallback`.
std::string gpu_source_words(const nlohmann::json& telemetry, const std::string& fallback) {
  if (telemetry.is_object() && telemetry.contains("sources") && telemetry["sources"].is_array())
    for (const auto& s : telemetry["sources"])
      if (s.is_object() && s.value("kind", "") == "gpu" && s.contains("detail") &&
          s["detail"].is_string())
        return s["detail"].get<std::string>();
  return fallback;
}

// The power series the run's energy is integrated from, and their source in words.
metrics::EnergyInput power_input(const RunSpec& spec, const metrics::RunInfo& info) {
  telemetry::PowerLog log = telemetry::read_power_log(spec.dir + "/telemetry.jsonl");
  metrics::EnergyInput in;
  const int tp = spec.sim.choice ? std::max(1, spec.sim.choice->tp) : 1;
  if (simulated(spec) && !log.gauge.empty()) {
    for (auto& s : log.gauge) s.gpus = tp;
    in.series = std::move(log.gauge);
    in.source =
        fmt::format("simulator power model ({} of {}/metrics{})", "DCGM_FI_DEV_POWER_USAGE",
                    spec.predict ? "predicted " : "", tp > 1 ? fmt::format(", x{} GPUs", tp) : "");
  } else if (!log.gpu.empty()) {
    in.series = std::move(log.gpu);
    in.source = gpu_source_words(info.telemetry, "gpu telemetry");
  } else if (!log.gauge.empty()) {
    in.series = std::move(log.gauge);
    in.source = "DCGM_FI_DEV_POWER_USAGE scraped from --server-metrics";
  }
  return in;
}

// Idle power per GPU and where it came from (see the header).
std::pair<std::optional<double>, std::string> idle_of(const RunSpec& spec,
                                                      const EconomicsConfig& ec,
                                                      const metrics::EnergyInput& in,
                                                      int64_t first_send_ns) {
  if (ec.idle_power_w) return {ec.idle_power_w, "idle_power_w"};
  if (simulated(spec)) return {sim_config_of(spec.sim, 0).gpu.idle_power_w, "simulator"};
  if (in.series.empty() || first_send_ns == kNoTime) return {std::nullopt, ""};
  double sum = 0;
  for (const auto& s : in.series) {
    const auto w = metrics::min_power_before(s.points, first_send_ns);
    if (!w) return {std::nullopt, ""};
    sum += *w;
  }
  return {sum / static_cast<double>(in.series.size()), "measured before load"};
}

int gpus_of(const RunSpec& spec, const EconomicsConfig& ec,
            const std::optional<metrics::CostRate>& rate, const metrics::EnergySummary* energy) {
  if (const auto n = gpus_of_label(ec.hardware)) return *n;
  if (rate && rate->instance_gpus > 0) return rate->instance_gpus;
  const int replicas = std::max(1, spec.sim.replicas);
  if (spec.sim.choice) return std::max(1, spec.sim.choice->tp) * replicas;
  if (simulated(spec)) return replicas;
  if (energy && energy->gpus > 0) return energy->gpus;
  return 1;
}

// Hardware and precision labels: given, else the simulator's (its catalog choice, or its
// preset's GPU and weight precision).
void fill_labels(const RunSpec& spec, EconomicsConfig& ec) {
  if (!simulated(spec) || (!ec.hardware.empty() && !ec.precision.empty())) return;
  std::string gpu, dtype;
  int tp = 1;
  if (const auto& ch = spec.sim.choice) {
    gpu = ch->gpu;
    dtype = ch->dtype;
    tp = std::max(1, ch->tp);
  } else {
    const sim::SimConfig sc = sim_config_of(spec.sim, 0);
    gpu = sc.gpu.name.starts_with("NVIDIA ") ? sc.gpu.name.substr(7) : sc.gpu.name;
    dtype = sc.model.dtype;
  }
  if (ec.hardware.empty()) ec.hardware = fmt::format("{}x {}", tp, gpu);
  if (ec.precision.empty()) ec.precision = dtype;
}

}  // namespace

std::optional<int> gpus_of_label(const std::string& hardware) {
  size_t i = 0;
  while (i < hardware.size() && std::isdigit(static_cast<unsigned char>(hardware[i]))) ++i;
  if (i == 0 || i > 3) return std::nullopt;
  size_t j = i;
  while (j < hardware.size() && hardware[j] == ' ') ++j;
  if (j >= hardware.size() || (hardware[j] != 'x' && hardware[j] != 'X')) return std::nullopt;
  const int n = std::stoi(hardware.substr(0, i));
  return n > 0 ? std::optional<int>(n) : std::nullopt;
}

EconomicsConfig economics_of(const RunSpec& spec) {
  EconomicsConfig ec = spec.economics;
  if (!spec.provider) return ec;
  const EconomicsConfig& p = spec.provider->economics;
  if (p.cost_per_hour_usd) ec.cost_per_hour_usd = p.cost_per_hour_usd;
  if (!p.instance.empty()) {
    ec.instance = p.instance;
    // The provider's own list price, not the command's (or plan's) price that overrides it.
    if (!p.cost_per_hour_usd) ec.cost_per_hour_usd.reset();
  }
  if (p.idle_power_w) ec.idle_power_w = p.idle_power_w;
  if (!p.hardware.empty()) ec.hardware = p.hardware;
  if (!p.precision.empty()) ec.precision = p.precision;
  return ec;
}

void EconomicsWindow::add(const metrics::RequestRecord& r) {
  if (r.t_send_ns != kNoTime)
    first_send_ns = first_send_ns == kNoTime ? r.t_send_ns : std::min(first_send_ns, r.t_send_ns);
  if (r.warmup) return;
  if (r.ok()) output_tokens += static_cast<double>(r.output_tokens);
  if (r.t_send_ns != kNoTime)
    start_ns = start_ns == kNoTime ? r.t_send_ns : std::min(start_ns, r.t_send_ns);
  if (r.t_end_ns != kNoTime) end_ns = std::max(end_ns, r.t_end_ns);
}

void add_economics(const RunSpec& spec, const EconomicsWindow& w, metrics::RunSummary& summary,
                   metrics::RunInfo& info) {
  EconomicsConfig ec = economics_of(spec);
  fill_labels(spec, ec);
  const double scale = time_scale_of(spec);
  const auto good =
      summary.goodput.slo.empty() ? std::nullopt : std::optional<int64_t>(summary.goodput.good);

  metrics::EnergyInput in = power_input(spec, info);
  const double interval_ms =
      info.telemetry.is_object() ? info.telemetry.value("interval_ms", 1000.0) : 1000.0;
  in.max_gap_ns = std::max<int64_t>(50'000'000, std::llround(interval_ms * 2.5e6));
  in.window_start_ns = w.start_ns == kNoTime ? 0 : w.start_ns;
  in.window_end_ns = w.end_ns == kNoTime ? 0 : w.end_ns;
  std::tie(in.idle_power_w, in.idle_source) = idle_of(spec, ec, in, w.first_send_ns);
  in.output_tokens = w.output_tokens;
  in.ok_requests = summary.requests.ok;
  in.good_requests = good;
  in.time_scale = scale;
  summary.energy = metrics::energy_of(in);

  const auto rate = metrics::cost_rate(ec.cost_per_hour_usd, ec.instance, "cost");
  if (rate)
    summary.cost = metrics::cost_of(*rate, summary.throughput.window_s, in.output_tokens,
                                    summary.requests.ok, good, scale);

  if (!ec.hardware.empty()) info.config["hardware"] = ec.hardware;
  if (!ec.precision.empty()) info.config["precision"] = ec.precision;
  info.config["gpus"] = gpus_of(spec, ec, rate, &*summary.energy);
  if (ec.cost_per_hour_usd) info.config["cost_per_hour"] = *ec.cost_per_hour_usd;
  if (!ec.instance.empty()) info.config["instance"] = ec.instance;
  if (ec.idle_power_w) info.config["idle_power_w"] = *ec.idle_power_w;
}

}  // namespace sb::plan
