#include "metrics/cost.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::metrics {

const std::vector<InstancePrice>& instance_prices() {
  // kPriceTableSource, on kPriceTableDate. A "/gpu" entry is one GPU's share of the instance
  // (its price ÷ its GPUs): the figure to cost a run that used one GPU of it.
  static const std::vector<InstancePrice> table = {
      {"aws:g5.xlarge", "A10G", 1, 1.006, "1x NVIDIA A10G 24 GB, 4 vCPU"},
      {"aws:g5.12xlarge", "A10G", 4, 5.672, "4x NVIDIA A10G 24 GB, 48 vCPU"},
      {"aws:g6.xlarge", "L4", 1, 0.8048, "1x NVIDIA L4 24 GB, 4 vCPU"},
      {"aws:g6e.xlarge", "L40S", 1, 1.861, "1x NVIDIA L40S 48 GB, 4 vCPU"},
      {"aws:p4d.24xlarge", "A100", 8, 32.7726, "8x NVIDIA A100 40 GB"},
      {"aws:p4d.24xlarge/gpu", "A100", 1, 32.7726 / 8, "one GPU's share of a p4d.24xlarge"},
      {"aws:p4de.24xlarge", "A100", 8, 40.9657, "8x NVIDIA A100 80 GB"},
      {"aws:p4de.24xlarge/gpu", "A100", 1, 40.9657 / 8, "one GPU's share of a p4de.24xlarge"},
      {"aws:p5.48xlarge", "H100", 8, 98.32, "8x NVIDIA H100 80 GB"},
      {"aws:p5.48xlarge/gpu", "H100", 1, 98.32 / 8, "one GPU's share of a p5.48xlarge"},
  };
  return table;
}

const InstancePrice* find_instance(std::string_view name) {
  for (const InstancePrice& p : instance_prices())
    if (p.name == name ||
        (p.name.starts_with("aws:") && std::string_view(p.name).substr(4) == name))
      return &p;
  return nullptr;
}

std::string instance_names() {
  std::string names;
  for (const InstancePrice& i : instance_prices()) names += (names.empty() ? "" : ", ") + i.name;
  return names;
}

std::optional<CostRate> cost_rate(std::optional<double> usd_per_hour, const std::string& instance,
                                  const std::string& what) {
  if (usd_per_hour && !(std::isfinite(*usd_per_hour) && *usd_per_hour >= 0))
    throw usage_error(fmt::format("{}: cost per hour {} must be a price in USD >= 0 (e.g. 1.006)",
                                  what, *usd_per_hour));
  const InstancePrice* p = nullptr;
  if (!instance.empty()) {
    p = find_instance(instance);
    if (!p)
      throw usage_error(fmt::format(
          "{} '{}': not in the price table (known: {}); give the price with --cost-per-hour "
          "(providers.yaml cost_per_hour) instead",
          what, instance, instance_names()));
  }
  if (!usd_per_hour && !p) return std::nullopt;
  CostRate r;
  if (p) {
    r.instance = p->name;
    r.instance_gpus = p->gpus;
  }
  if (usd_per_hour) {
    r.usd_per_hour = *usd_per_hour;
    r.source = "cost_per_hour";
  } else {
    r.usd_per_hour = p->usd_per_hour;
    r.source = fmt::format("instance {} (price table {})", p->name, kPriceTableDate);
  }
  return r;
}

CostSummary cost_of(const CostRate& rate, double window_s, double output_tokens,
                    int64_t ok_requests, std::optional<int64_t> good_requests, double time_scale) {
  CostSummary c;
  c.rate = rate;
  const double scale = time_scale > 0 ? time_scale : 1.0;
  if (scale != 1.0) c.time_base = "model";
  c.window_s = window_s / scale;
  c.usd = rate.usd_per_hour * c.window_s / 3600.0;
  if (output_tokens > 0) c.usd_per_million_output_tokens = c.usd / output_tokens * 1e6;
  if (ok_requests > 0) c.usd_per_1000_requests = c.usd / static_cast<double>(ok_requests) * 1000;
  if (good_requests && *good_requests > 0)
    c.usd_per_1000_good_requests = c.usd / static_cast<double>(*good_requests) * 1000;
  return c;
}

}  // namespace sb::metrics
