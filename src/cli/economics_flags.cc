#include "cli/economics_flags.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "metrics/cost.h"

namespace sb::cli {

void add_economics_flags(CLI::App& app, EconomicsFlags& f) {
  app.add_option("--cost-per-hour", f.cost_per_hour,
                 "USD per hour of what serves the run (every GPU and replica): summary.json cost "
                 "($ per million output tokens, per 1,000 requests); overrides --instance's price");
  app.add_option("--instance", f.instance,
                 "Cost the run at a cloud instance's list price (aws:g5.xlarge, aws:g6.xlarge, "
                 "aws:p4d.24xlarge/gpu, ...; prof --list-instances prints the table)");
  app.add_option("--idle-power-w", f.idle_power_w,
                 "GPU idle power per GPU for the idle-subtracted energy (default: the simulator's, "
                 "else the lowest power sampled before load)");
  app.add_option("--hardware", f.hardware,
                 "Hardware label for comparisons (\"1x A10G\", \"2x H100\"; a leading Nx gives the "
                 "GPU count)");
  app.add_option("--precision", f.precision,
                 "Precision label for comparisons (fp16, int8, gptq-4bit, awq-4bit)");
}

plan::EconomicsConfig to_economics_config(const EconomicsFlags& f) {
  plan::EconomicsConfig c;
  (void)metrics::cost_rate(f.cost_per_hour, f.instance,
                           f.instance.empty() ? "--cost-per-hour" : "--instance");
  if (f.idle_power_w && !(std::isfinite(*f.idle_power_w) && *f.idle_power_w >= 0))
    throw usage_error(
        fmt::format("--idle-power-w {}: a power in watts >= 0 (e.g. 60)", *f.idle_power_w));
  c.cost_per_hour_usd = f.cost_per_hour;
  c.instance = f.instance;
  c.idle_power_w = f.idle_power_w;
  c.hardware = f.hardware;
  c.precision = f.precision;
  return c;
}

std::string instance_table_text() {
  std::string out = fmt::format("{:<24} {:>4} {:>10}  {}\n", "instance", "GPUs", "USD/hour", "");
  for (const auto& p : metrics::instance_prices())
    out += fmt::format("{:<24} {:>4} {:>10.4f}  {}\n", p.name, p.gpus, p.usd_per_hour, p.note);
  out += fmt::format("prices of {}: {}\n", metrics::kPriceTableDate, metrics::kPriceTableSource);
  return out;
}

}  // namespace sb::cli
