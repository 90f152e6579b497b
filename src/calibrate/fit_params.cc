#include "calibrate/fit_params.h"

#include <algorithm>
#include <cmath>

namespace sb::calibrate {
namespace {

FitParam bandwidth() {
  return {"bandwidth-efficiency",
          0.01,
          1.0,
          0.0,
          false,
          [](const sim::SimConfig& c) { return c.gpu.bandwidth_efficiency; },
          [](sim::SimConfig& c, double v) { c.gpu.bandwidth_efficiency = v; }};
}
FitParam mfu() {
  return {"mfu",
          0.01,
          1.0,
          0.0,
          false,
          [](const sim::SimConfig& c) { return c.gpu.mfu; },
          [](sim::SimConfig& c, double v) { c.gpu.mfu = v; }};
}
FitParam step_overhead() {
  return {"step-overhead-ms",
          0,
          1000,
          0.1,
          false,
          [](const sim::SimConfig& c) { return c.cost.step_overhead_ms; },
          [](sim::SimConfig& c, double v) { c.cost.step_overhead_ms = v; }};
}
FitParam prefill_overhead() {
  return {"prefill-overhead-ms",
          0,
          1000,
          0.1,
          false,
          [](const sim::SimConfig& c) { return c.cost.prefill_overhead_ms; },
          [](sim::SimConfig& c, double v) { c.cost.prefill_overhead_ms = v; }};
}
FitParam request_overhead() {
  return {"overhead-ms",
          0,
          10000,
          0.1,
          false,
          [](const sim::SimConfig& c) { return c.sched.overhead_ms; },
          [](sim::SimConfig& c, double v) { c.sched.overhead_ms = v; }};
}

}  // namespace

std::vector<FitParam> fit_params_for(const sim::SimConfig& base) {
  std::vector<FitParam> out = {bandwidth(), mfu(), step_overhead(), prefill_overhead(),
                               request_overhead()};
  if (base.sched.prefill_mode == sim::PrefillMode::separate)
    out.push_back({"waiting-served-ratio", 0, 10, 0.1, false,
                   [](const sim::SimConfig& c) { return c.sched.waiting_served_ratio; },
                   [](sim::SimConfig& c, double v) { c.sched.waiting_served_ratio = v; }});
  if (base.sched.prefill_mode == sim::PrefillMode::chunked)
    out.push_back({"max-num-batched-tokens",
                   static_cast<double>(std::max(1, base.sched.max_batch_size)), 65536, 0.0, true,
                   [](const sim::SimConfig& c) {
                     return static_cast<double>(c.sched.max_num_batched_tokens);
                   },
                   [](sim::SimConfig& c, double v) {
                     c.sched.max_num_batched_tokens = static_cast<int64_t>(std::llround(v));
                   }});
  return out;
}

double to_u(const FitParam& p, double x) {
  return std::log(std::clamp(x, p.lo, p.hi) + p.shift);
}

double from_u(const FitParam& p, double u) {
  double x = std::clamp(std::exp(u) - p.shift, p.lo, p.hi);
  if (p.integer) x = std::round(x);
  return x;
}

}  // namespace sb::calibrate
