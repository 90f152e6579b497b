#pragma once
// Cost of a run (docs/metrics.md, "Energy and cost"): the hourly price of what served it times
// the measured window, per million output tokens and per 1,000 requests.
//
//   usd                          = usd_per_hour × window_s / 3600
//   usd_per_million_output_tokens = usd / output tokens of ok requests × 1e6
//   usd_per_1000_requests         = usd / ok requests × 1000
//   usd_per_1000_good_requests    = usd / requests meeting the SLOs × 1000 (with an SLO)
// For a time-scaled simulator the window is model time (window ÷ S). The price is the whole
// deployment's (every GPU and replica the run used); a price per GPU must be multiplied by
// the GPUs first.
//
// The price comes from --cost-per-hour (providers.yaml cost_per_hour) or a built-in table of
// cloud instances (--instance NAME, providers.yaml instance); a price given overrides the
// instance's. The table's prices are list prices on a date (kPriceTableDate, kPriceTableSource):
// they change; give --cost-per-hour for the price you pay.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::metrics {

struct InstancePrice {
  std::string name;  // "aws:g5.xlarge"
  std::string gpu;   // "A10G" (the simulator catalog's name)
  int gpus = 1;
  double usd_per_hour = 0;
  std::string note;  // "1x NVIDIA A10G 24 GB"
};

inline constexpr std::string_view kPriceTableDate = "2024-12";
inline constexpr std::string_view kPriceTableSource =
    "AWS EC2 On-Demand, Linux, US East (N. Virginia), https://aws.amazon.com/ec2/pricing/on-demand/"
    " (list prices of December 2024; AWS cut P4 and P5 prices in June 2025)";

// The built-in table, in a fixed order.
const std::vector<InstancePrice>& instance_prices();
// The entry named `name` (case-sensitive); nullptr when none.
// A bare name ("g5.xlarge") finds its "aws:" entry.
const InstancePrice* find_instance(std::string_view name);
// The table's names, ", "-separated (for messages).
std::string instance_names();

// The price a run is costed at.
struct CostRate {
  double usd_per_hour = 0;
  std::string source;     // "--cost-per-hour" | "instance aws:g5.xlarge (price table 2024-12)"
  std::string instance;   // the table entry, when one was named
  int instance_gpus = 0;  // its GPUs (0: no instance)
};

// The rate of a run: `usd_per_hour` when given (it overrides the instance's price), else the
// instance's; nullopt when neither. Throws sb::usage_error for a negative price or an unknown
// instance, naming `what` ("--instance", "providers[0].instance") and the table's names.
std::optional<CostRate> cost_rate(std::optional<double> usd_per_hour, const std::string& instance,
                                  const std::string& what);

struct CostSummary {
  CostRate rate;
  double window_s = 0;  // model time for a time-scaled simulator
  std::string time_base = "wall";
  double usd = 0;
  std::optional<double> usd_per_million_output_tokens, usd_per_1000_requests,
      usd_per_1000_good_requests;
};

// The arithmetic above (nullopt figures where a count is 0; good_requests nullopt: no SLO).
CostSummary cost_of(const CostRate& rate, double window_s, double output_tokens,
                    int64_t ok_requests, std::optional<int64_t> good_requests,
                    double time_scale = 1.0);

}  // namespace sb::metrics
