#pragma once
// Loading run folders (as `servebench prof` writes them) for `report` and `compare`.
//
// A run folder holds summary.json (required, schema servebench.summary/1) and requests.jsonl
// (optional: without it the per-request charts and `compare` have no samples). A "plan
// folder" is a folder without summary.json whose subfolders (up to three levels, sorted) are
// run folders. Bad input never crashes and is never silently dropped:
//   - a missing, unreadable or truncated summary.json is an sb::Error naming the file;
//   - a summary.json of another schema is an sb::Error naming the file, its schema and ours;
//   - requests.jsonl lines that do not parse (e.g. the last line cut mid-way because the run
//     was killed) are skipped, counted in RunData::skipped_lines and described in warnings;
//   - an empty run (no measured requests) loads; the report says it is empty.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/request_samples.h"
#include "results/summary_read.h"

namespace sb::report {

struct RunData {
  std::string dir;   // the folder as given or found
  std::string name;  // the folder's own name (its last path component)
  std::string
      backend;  // --label NAME, else config.provider, else config.sim_preset, else host:port
  std::string scenario;       // see scenario_of()
  nlohmann::json summary;     // summary.json without its `timeseries` (that is in view, typed)
  results::SummaryView view;  // summary, typed (results::summary_from_json)
  bool has_requests = false;  // requests.jsonl was present
  // What report and compare use of its whole lines (request_samples.h); the texts only when
  // the run saved outputs (config.save_outputs).
  RequestSamples samples;
  int64_t records = 0;                // whole lines of requests.jsonl, warm-up included
  int64_t skipped_lines = 0;          // requests.jsonl lines that did not parse
  std::vector<std::string> warnings;  // human-readable, one line each
};

// What of a run folder a caller needs beyond the summary's figures, the latencies and completions.
struct LoadOptions {
  // The inter-token gaps (4 bytes a token): report's ITL tables and charts and compare use
  // them; a study's tables do not (a plan's comparison table loads every run at once).
  bool inter_token_gaps = true;
  // summary.json's per-bucket time series (up to 10,000 buckets a run: the report's "Over
  // time" charts), in view.timeseries (RunData::summary never keeps its JSON copy). A study's
  // tables do not use it (a plan's comparison table holds every run at once: 0.42 GB of series
  // for the reference study at ten times its requests).
  bool time_series = true;
};

// summary.json, checked (schema) and redacted; without `time_series` its `timeseries` is
// dropped while parsing (no DOM is built for it). Throws sb::Error saying what is wrong.
nlohmann::json load_summary(const std::filesystem::path& file, bool time_series = true);

// Loads one run folder; `backend_label` (may be empty) overrides the backend name.
RunData load_run_folder(const std::string& dir, const std::string& backend_label = "",
                        const LoadOptions& options = {});

// Loads every PATH argument: a run folder, a plan folder (its run subfolders) or
// "NAME=PATH" (the same, with backend NAME). Throws sb::Error when a path is neither, or when
// nothing was found.
std::vector<RunData> load_runs(const std::vector<std::string>& paths,
                               const LoadOptions& options = {});

// The backend a summary's config names: config.provider (plan and sweep runs), else
// config.sim_preset ("sim:tgi"), else the host:port of
// config.base_url, else "unknown".
std::string backend_of(const results::SummaryView& summary);
std::string backend_of(const nlohmann::json& summary);

// The scenario: config.scenario when present, else the class names joined with "+" when the
// run had several classes, else "in{input_tokens}/out{output_tokens}" from config.workload.
std::string scenario_of(const results::SummaryView& summary);
std::string scenario_of(const nlohmann::json& summary);

// The load the run was driven at: closed loop -> concurrency, open loop -> target rate.
struct LoadPoint {
  std::string kind;  // "concurrency" | "rate"
  double value = 0;
};
LoadPoint load_of(const results::SummaryView& summary);
LoadPoint load_of(const nlohmann::json& summary);

// Reads summary[a][b]...: a finite number, or nullopt when absent, null or not a number.
std::optional<double> number_at(const nlohmann::json& j, std::initializer_list<const char*> path);

// Whether the run kept its response texts (config.save_outputs).
bool saved_outputs(const RunData& run);

}  // namespace sb::report
