#include "report/run_folder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "results/request_log_read.h"
#include "results/summary_json.h"
#include "results/summary_redact.h"

namespace sb::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_whole(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  if (!ok) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void load_requests(const fs::path& file, RunData& run, const LoadOptions& options) {
  if (!fs::exists(file)) {
    run.warnings.push_back(
        fmt::format("{}: missing; per-request charts (CDFs) and compare need it", file.string()));
    return;
  }
  const RequestSamples::Keep keep{saved_outputs(run), options.inter_token_gaps};
  // The summary's counts, as far as the file can hold them (a record takes more than 64 bytes,
  // a gap at least 2): a wrong summary must not make a huge reservation.
  std::error_code size_ec;
  const auto bytes = static_cast<int64_t>(fs::file_size(file, size_ec));
  const results::DistributionView* itl = run.view.metrics.find("itl_ms");
  if (!size_ec)
    run.samples.reserve(std::min(run.view.requests.ok.value_or(0), bytes / 64),
                        keep.gaps ? std::min(itl ? itl->count.value_or(0) : 0, bytes / 2) : 0);
  results::RequestLogScan scan;
  try {
    scan = results::scan_request_log(
        file.string(), [&](const metrics::RequestRecord& r) { run.samples.add(r, keep); },
        [&] { run.samples = RequestSamples{}; });
  } catch (const Error&) {
    run.samples = RequestSamples{};
    run.warnings.push_back(fmt::format("{}: cannot read it", file.string()));
    return;
  }
  run.samples.finish();
  run.has_requests = true;
  run.records = scan.records;
  run.skipped_lines = scan.skipped_lines;
  if (run.skipped_lines > 0)
    run.warnings.push_back(
        fmt::format("{}: skipped {} line{} that did not parse (first: {}); "
                    "used the {} whole line{}",
                    file.string(), run.skipped_lines, run.skipped_lines == 1 ? "" : "s",
                    scan.first_error, run.records, run.records == 1 ? "" : "s"));
}

std::string folder_name(const fs::path& p) {
  fs::path q = p;
  if (q.filename().empty()) q = q.parent_path();
  return q.filename().string();
}

}  // namespace

json load_summary(const fs::path& file, bool time_series) {
  if (!fs::exists(file))
    throw Error(fmt::format("{}: missing (not a run folder? `servebench prof -o DIR` writes it)",
                            file.string()));
  bool ok = false;
  const std::string text = read_whole(file, ok);
  if (!ok) throw Error(fmt::format("{}: cannot read it", file.string()));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(fmt::format("{}: empty file (the run did not finish writing it)", file.string()));
  const json::parser_callback_t without_series = [](int depth, json::parse_event_t event,
                                                    json& parsed) {
    return !(depth == 1 && event == json::parse_event_t::key && parsed == "timeseries");
  };
  json j = json::parse(text, time_series ? nullptr : without_series, /*allow_exceptions=*/false);
  if (j.is_discarded())
    throw Error(fmt::format("{}: not valid JSON (truncated or corrupted; rerun the benchmark)",
                            file.string()));
  if (!j.is_object()) throw Error(fmt::format("{}: not a JSON object", file.string()));
  const auto it = j.find("schema");
  if (it == j.end() || !it->is_string())
    throw Error(fmt::format("{}: no \"schema\" field; this servebench reads {}", file.string(),
                            results::kSummarySchema));
  if (it->get<std::string>() != results::kSummarySchema)
    throw Error(
        fmt::format("{}: schema '{}' is not supported; this servebench reads '{}' "
                    "(use the servebench version that wrote it)",
                    file.string(), it->get<std::string>(), results::kSummarySchema));
  // What a report prints (the whole config, telemetry sources, warnings) is redacted again:
  // a folder may come from an older servebench that wrote secrets.
  return results::redact_summary(std::move(j));
}

std::optional<double> number_at(const json& j, std::initializer_list<const char*> path) {
  const json* cur = &j;
  for (const char* key : path) {
    if (!cur->is_object()) return std::nullopt;
    auto it = cur->find(key);
    if (it == cur->end()) return std::nullopt;
    cur = &*it;
  }
  if (!cur->is_number()) return std::nullopt;
  const double v = cur->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string backend_of(const results::SummaryView& s) {
  const results::RunFacts& f = s.facts;
  if (f.provider) return *f.provider;  // plan and sweep runs
  if (f.sim_preset) return "sim:" + *f.sim_preset;
  if (f.base_url) {
    std::string url = *f.base_url;
    if (auto p = url.find("://"); p != std::string::npos) url = url.substr(p + 3);
    if (auto p = url.find('/'); p != std::string::npos) url = url.substr(0, p);
    if (!url.empty()) return url;
  }
  return "unknown";
}

std::string backend_of(const json& s) {
  return backend_of(results::summary_from_json(s));
}

std::string scenario_of(const results::SummaryView& s) {
  const results::RunFacts& f = s.facts;
  if (f.scenario) return *f.scenario;
  if (f.workload_scenario && !f.workload_scenario->empty())
    return *f.workload_scenario;  // `prof --scenario`
  if (s.classes.size() > 1) {
    std::string out;
    for (const auto& [name, _] : s.classes) out += (out.empty() ? "" : "+") + name;
    return out;
  }
  if (f.workload_input_tokens && f.workload_output_tokens) {
    // The lengths the prompts had: a distribution or a shared-prefix spec replaces the count.
    auto given = [](const std::optional<std::string>& v) { return v && !v->empty(); };
    const std::string in = given(f.workload_input_dist) ? "in[" + *f.workload_input_dist + "]"
                           : given(f.workload_shared_prefix)
                               ? "prefix[" + *f.workload_shared_prefix + "]"
                               : fmt::format("in{}", *f.workload_input_tokens);
    const std::string out = given(f.workload_output_dist)
                                ? "out[" + *f.workload_output_dist + "]"
                                : fmt::format("out{}", *f.workload_output_tokens);
    return in + "/" + out;
  }
  return "default";
}

std::string scenario_of(const json& s) {
  return scenario_of(results::summary_from_json(s));
}

LoadPoint load_of(const results::SummaryView& s) {
  if (s.load.mode == "open")
    return {"rate", s.load.target_rate.value_or(s.load.achieved_rate.value_or(0))};
  return {"concurrency", s.load.concurrency.value_or(0)};
}

LoadPoint load_of(const json& s) {
  return load_of(results::summary_from_json(s));
}

RunData load_run_folder(const std::string& dir, const std::string& backend_label,
                        const LoadOptions& options) {
  const fs::path p(dir);
  if (!fs::is_directory(p))
    throw Error(fmt::format("{}: not a folder (give a run folder or a folder of runs)", dir));
  RunData run;
  run.dir = dir;
  run.name = folder_name(p);
  run.summary = load_summary(p / "summary.json", options.time_series);
  run.view = results::summary_from_json(run.summary);
  // The time series is read from `view`, typed: its JSON copy (most of a long run's summary) is
  // not kept. (Without options.time_series it was never parsed.)
  run.summary.erase("timeseries");
  run.backend = backend_label.empty() ? backend_of(run.view) : backend_label;
  run.scenario = scenario_of(run.view);
  load_requests(p / "requests.jsonl", run, options);
  if (run.view.requests.total.value_or(0) == 0)
    run.warnings.push_back(fmt::format("{}: empty run (no measured requests)", dir));
  // The client-health verdict (metrics/client_health.h): report and compare both say it.
  if (const auto h = run.summary.find("client_health");
      h != run.summary.end() && h->is_object() && h->value("client_limited", false)) {
    const auto reasons = h->value("reasons", std::vector<std::string>{});
    run.warnings.push_back(fmt::format(
        "{}: the client was the bottleneck ({}); the server received less load than asked", dir,
        reasons.empty() ? "client_limited" : reasons[0]));
  }
  return run;
}

std::vector<RunData> load_runs(const std::vector<std::string>& paths, const LoadOptions& options) {
  std::vector<RunData> runs;
  for (const std::string& arg : paths) {
    std::string label, dir = arg;
    if (auto eq = arg.find('='); eq != std::string::npos && !fs::exists(arg)) {
      label = arg.substr(0, eq);
      dir = arg.substr(eq + 1);
    }
    const fs::path p(dir);
    if (!fs::is_directory(p))
      throw Error(fmt::format("{}: no such folder (give a run folder or a folder of runs)", dir));
    if (fs::exists(p / "summary.json")) {
      runs.push_back(load_run_folder(dir, label, options));
      continue;
    }
    // A plan folder: run folders up to three levels down (plan/backend/scenario/run).
    std::vector<fs::path> subs;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
      if (!it->is_directory()) continue;
      if (fs::exists(it->path() / "summary.json")) {
        subs.push_back(it->path());
        it.disable_recursion_pending();
      } else if (it.depth() >= 2) {
        it.disable_recursion_pending();
      }
    }
    std::sort(subs.begin(), subs.end());
    if (subs.empty())
      throw Error(
          fmt::format("{}: no summary.json in it nor in any subfolder "
                      "(not a run folder nor a folder of runs)",
                      (p / "summary.json").string()));
    for (const fs::path& sub : subs) runs.push_back(load_run_folder(sub.string(), label, options));
  }
  if (runs.empty()) throw usage_error("no run folders given");
  return runs;
}

bool saved_outputs(const RunData& run) {
  const auto c = run.summary.find("config");
  return c != run.summary.end() && c->is_object() && c->value("save_outputs", false);
}

}  // namespace sb::report
