#pragma once
// summary.json's `energy` and `cost` blocks (metrics/energy.h, metrics/cost.h): the writer and
// the typed reader (SummaryView::energy, ::cost).
//
//   "energy": {"available", "reason" (null when available), "source", "series", "gpus",
//              "samples", "gaps", "gap_s", "window_s", "time_base" ("wall" | "model"),
//              "energy_j", "mean_power_w", "j_per_output_token", "output_tokens_per_j",
//              "j_per_request", "goodput_per_w" (good requests per joule = goodput req/s per W;
//              null without an SLO), "idle_power_w" (per GPU; null: unknown), "idle_source",
//              "above_idle": {"energy_j", "mean_power_w", "j_per_output_token",
//              "output_tokens_per_j", "j_per_request", "goodput_per_w"} (null without idle)}
//   "cost":   {"usd_per_hour", "rate_source", "instance" (null), "instance_gpus",
//              "window_s", "time_base", "usd", "usd_per_million_output_tokens",
//              "usd_per_1000_requests", "usd_per_1000_good_requests"}
// Figures that are undefined are null. The reader never throws for content: absent, null or
// mistyped members read as empty optionals; a block that is not an object reads as nullopt.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "metrics/cost.h"
#include "metrics/energy.h"

namespace sb::results {

nlohmann::json energy_to_json(const metrics::EnergySummary& e);
nlohmann::json cost_to_json(const metrics::CostSummary& c);

struct EnergyFiguresView {
  std::optional<double> energy_j, mean_power_w, j_per_output_token, output_tokens_per_j,
      j_per_request, goodput_per_w;
};

struct EnergyView {
  std::optional<bool> available;
  std::optional<std::string> reason, source, time_base, idle_source;
  std::optional<int64_t> series, gpus, samples, gaps;
  std::optional<double> gap_s, window_s, idle_power_w;
  EnergyFiguresView total;
  std::optional<EnergyFiguresView> above_idle;
};

struct CostView {
  std::optional<double> usd_per_hour, window_s, usd, usd_per_million_output_tokens,
      usd_per_1000_requests, usd_per_1000_good_requests;
  std::optional<std::string> rate_source, instance, time_base;
  std::optional<int64_t> instance_gpus;
};

// summary["energy"] / summary["cost"] read; nullopt when absent or not an object.
std::optional<EnergyView> energy_view_of(const nlohmann::json& summary);
std::optional<CostView> cost_view_of(const nlohmann::json& summary);

}  // namespace sb::results
