#include "telemetry/power_log.h"

#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

namespace sb::telemetry {

PowerLog read_power_log(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, metrics::PowerSeries> gpu, gauge;
  for (std::string line; std::getline(in, line);) {
    // Most lines are other series: only those naming a power series are parsed.
    const bool is_gpu = line.find("\"power_w\"") != std::string::npos;
    if (!is_gpu && line.find("DCGM_FI_DEV_POWER_USAGE") == std::string::npos) continue;
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const auto t = j.find("t_s"), v = j.find("value"), key = j.find("key");
    const auto source = j.find("source"), name = j.find("name");
    if (t == j.end() || !t->is_number() || v == j.end() || !v->is_number() || key == j.end() ||
        !key->is_string() || source == j.end() || !source->is_string() || name == j.end() ||
        !name->is_string())
      continue;
    const std::string src = source->get<std::string>(), n = name->get<std::string>();
    auto* into = src == "gpu" && n == "power_w"   ? &gpu
                 : n == "DCGM_FI_DEV_POWER_USAGE" ? &gauge
                                                  : nullptr;
    if (!into) continue;
    metrics::PowerSeries& s = (*into)[key->get<std::string>()];
    s.name = key->get<std::string>();
    s.points.emplace_back(std::llround(t->get<double>() * 1e9), v->get<double>());
  }
  PowerLog out;
  for (auto& [k, s] : gpu) out.gpu.push_back(std::move(s));
  for (auto& [k, s] : gauge) out.gauge.push_back(std::move(s));
  return out;
}

}  // namespace sb::telemetry
