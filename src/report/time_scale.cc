#include "report/time_scale.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sb::report {

double time_scale_of(const nlohmann::json& summary) {
  if (!summary.is_object()) return 1;
  const auto cfg = summary.find("config");
  if (cfg == summary.end() || !cfg->is_object()) return 1;
  const auto s = cfg->find("sim_time_scale");
  if (s == cfg->end() || !s->is_number()) return 1;
  const double v = s->get<double>();
  return std::isfinite(v) && v > 0 ? v : 1;
}

std::string scale_statement(double scale) {
  return scale == 1 ? std::string() : fmt::format("simulated at ×{:g}", scale);
}

std::vector<double> distinct_scales(const std::vector<const nlohmann::json*>& summaries) {
  std::vector<double> out;
  for (const nlohmann::json* s : summaries) {
    const double v = time_scale_of(*s);
    if (v != 1 && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string scale_note(const std::vector<double>& scales) {
  if (scales.empty()) return "";
  if (scales.size() > 1) {
    std::string list;
    for (double s : scales) list += (list.empty() ? "×" : ", ×") + fmt::format("{:g}", s);
    return fmt::format(
        "simulated at {} (runs differ): times are wall-clock on this machine; model time = "
        "wall ÷ the run's scale",
        list);
  }
  const double s = scales.front();
  return fmt::format(
      "simulated at ×{0:g}: times are wall-clock on this machine, {1:g}× {2} than the modelled "
      "hardware's; ≈ marks model time: wall ÷ {0:g} (rates × {0:g}), client overhead included",
      s, s < 1 ? 1 / s : s, s < 1 ? "shorter" : "longer");
}

bool predicted_of(const nlohmann::json& summary) {
  if (!summary.is_object()) return false;
  const auto cfg = summary.find("config");
  if (cfg == summary.end() || !cfg->is_object()) return false;
  const auto p = cfg->find("predicted");
  return p != cfg->end() && p->is_boolean() && p->get<bool>();
}

size_t count_predicted(const std::vector<const nlohmann::json*>& summaries) {
  return static_cast<size_t>(
      std::count_if(summaries.begin(), summaries.end(),
                    [](const nlohmann::json* s) { return predicted_of(*s); }));
}

std::string predicted_note(size_t predicted, size_t total) {
  if (predicted == 0) return "";
  const std::string which = predicted == total
                                ? fmt::format("all {} runs were", total)
                                : fmt::format("{} of {} runs were", predicted, total);
  return fmt::format(
      "Predicted, not measured: {} computed by `servebench predict` in virtual time from the "
      "simulator's model (no server ran); their times are the model's.",
      which);
}

}  // namespace sb::report
