#include "telemetry/telemetry_log_read.h"

#include <cmath>
#include <fstream>

#include "telemetry/series_store.h"

namespace sb::telemetry {

std::optional<nlohmann::json> telemetry_from_jsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  SeriesStore store;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const auto t = j.find("t_s"), source = j.find("source"), name = j.find("name");
    if (t == j.end() || !t->is_number() || source == j.end() || !source->is_string() ||
        name == j.end() || !name->is_string())
      continue;
    SeriesMeta meta;
    meta.source = source->get<std::string>();
    meta.name = name->get<std::string>();
    if (auto labels = j.find("labels"); labels != j.end() && labels->is_object())
      for (const auto& [k, v] : labels->items())
        if (v.is_string()) meta.labels.emplace_back(k, v.get<std::string>());
    const auto value = j.find("value");
    // A null value is a non-finite sample: kept as NaN, which the statistics skip.
    const double v = value != j.end() && value->is_number() ? value->get<double>() : std::nan("");
    store.add(meta, std::llround(t->get<double>() * 1e9), v);
    any = true;
  }
  if (!any) return std::nullopt;
  return nlohmann::json{{"series", store.series_json()},
                        {"histograms", nlohmann::json::array()},
                        {"rebuilt_from", "telemetry.jsonl"}};
}

}  // namespace sb::telemetry
