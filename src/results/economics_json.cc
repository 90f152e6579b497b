#include "results/economics_json.h"

#include <cmath>

#include "results/json_fields.h"

namespace sb::results {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

json figures_json(const metrics::EnergyFigures& f) {
  return {{"energy_j", f.energy_j},
          {"mean_power_w", f.mean_power_w},
          {"j_per_output_token", opt(f.j_per_output_token)},
          {"output_tokens_per_j", opt(f.output_tokens_per_j)},
          {"j_per_request", opt(f.j_per_request)},
          {"goodput_per_w", opt(f.goodput_per_w)}};
}

using json_fields::count;
using json_fields::member;
using json_fields::num;
using json_fields::text;

EnergyFiguresView figures_of(const json& j) {
  return {num(j, "energy_j"),           num(j, "mean_power_w"),
          num(j, "j_per_output_token"), num(j, "output_tokens_per_j"),
          num(j, "j_per_request"),      num(j, "goodput_per_w")};
}

}  // namespace

json energy_to_json(const metrics::EnergySummary& e) {
  json out = {{"available", e.available}, {"reason", e.available ? json(nullptr) : json(e.reason)},
              {"source", e.source},       {"series", e.series},
              {"gpus", e.gpus},           {"samples", e.samples},
              {"gaps", e.gaps},           {"gap_s", e.gap_s},
              {"window_s", e.window_s},   {"time_base", e.time_base}};
  const json f = e.available ? figures_json(e.total) : figures_json({});
  for (const auto& [k, v] : f.items()) out[k] = e.available ? v : json(nullptr);
  out["idle_power_w"] = opt(e.idle_power_w);
  out["idle_source"] = e.idle_power_w ? json(e.idle_source) : json(nullptr);
  out["above_idle"] = e.above_idle ? figures_json(*e.above_idle) : json(nullptr);
  return out;
}

json cost_to_json(const metrics::CostSummary& c) {
  return {{"usd_per_hour", c.rate.usd_per_hour},
          {"rate_source", c.rate.source},
          {"instance", c.rate.instance.empty() ? json(nullptr) : json(c.rate.instance)},
          {"instance_gpus", c.rate.instance_gpus},
          {"window_s", c.window_s},
          {"time_base", c.time_base},
          {"usd", c.usd},
          {"usd_per_million_output_tokens", opt(c.usd_per_million_output_tokens)},
          {"usd_per_1000_requests", opt(c.usd_per_1000_requests)},
          {"usd_per_1000_good_requests", opt(c.usd_per_1000_good_requests)}};
}

std::optional<EnergyView> energy_view_of(const json& summary) {
  const json* e = member(summary, "energy");
  if (!e || !e->is_object()) return std::nullopt;
  EnergyView v;
  if (const json* a = member(*e, "available"); a && a->is_boolean()) v.available = a->get<bool>();
  v.reason = text(*e, "reason");
  v.source = text(*e, "source");
  v.time_base = text(*e, "time_base");
  v.idle_source = text(*e, "idle_source");
  v.series = count(*e, "series");
  v.gpus = count(*e, "gpus");
  v.samples = count(*e, "samples");
  v.gaps = count(*e, "gaps");
  v.gap_s = num(*e, "gap_s");
  v.window_s = num(*e, "window_s");
  v.idle_power_w = num(*e, "idle_power_w");
  v.total = figures_of(*e);
  if (const json* a = member(*e, "above_idle"); a && a->is_object()) v.above_idle = figures_of(*a);
  return v;
}

std::optional<CostView> cost_view_of(const json& summary) {
  const json* c = member(summary, "cost");
  if (!c || !c->is_object()) return std::nullopt;
  CostView v;
  v.usd_per_hour = num(*c, "usd_per_hour");
  v.window_s = num(*c, "window_s");
  v.usd = num(*c, "usd");
  v.usd_per_million_output_tokens = num(*c, "usd_per_million_output_tokens");
  v.usd_per_1000_requests = num(*c, "usd_per_1000_requests");
  v.usd_per_1000_good_requests = num(*c, "usd_per_1000_good_requests");
  v.rate_source = text(*c, "rate_source");
  v.instance = text(*c, "instance");
  v.time_base = text(*c, "time_base");
  v.instance_gpus = count(*c, "instance_gpus");
  return v;
}

}  // namespace sb::results
