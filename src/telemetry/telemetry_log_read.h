#pragma once
// Reads a telemetry.jsonl (series_store.h, one point per line) back into the `series` part of
// summary.json's `telemetry`, for `servebench summarize` when the run's summary.json is gone.
//
// Contract: the result is {"series": [...], "histograms": [], "rebuilt_from":
// "telemetry.jsonl"}, each series with key, source, name, labels, count, mean, p50, max as
// SeriesStore::series_json() computes them over every point of the file. What telemetry.jsonl
// does not hold stays empty: kind, unit and report_name (so no points), histograms, sources,
// interval_ms, warnings. Blank lines and lines that do not parse (a cut last line) are
// skipped. nullopt when the file cannot be opened or holds no point.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sb::telemetry {

std::optional<nlohmann::json> telemetry_from_jsonl(const std::string& path);

}  // namespace sb::telemetry
