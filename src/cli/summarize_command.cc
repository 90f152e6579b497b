#include "cli/summarize_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/units.h"
#include "metrics/goodput.h"
#include "metrics/run_accumulator.h"
#include "metrics/run_summary.h"
#include "report/terminal_summary.h"
#include "results/request_log_read.h"
#include "results/run_outputs.h"
#include "telemetry/telemetry_log_read.h"

namespace sb::cli {
namespace {

struct SummarizeFlags {
  std::string dir;
  std::vector<std::string> goodput;
  std::string bucket_interval;
  bool quiet = false;
};

// The fields of an old summary.json that only the run's config knew.
void apply_old_summary(const nlohmann::json& s, metrics::RunInfo& info) {
  auto get = [](const nlohmann::json& j, const char* key) -> const nlohmann::json* {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  };
  if (auto* c = get(s, "config"); c && c->is_object()) info.config = *c;
  if (auto* h = get(s, "host"); h && h->is_object()) info.host = *h;
  // Telemetry never depends on the requests: the run's own block is kept as it was.
  if (auto* t = get(s, "telemetry"); t && t->is_object()) info.telemetry = *t;
  if (auto* run = get(s, "run")) {
    if (auto* v = get(*run, "started_at"); v && v->is_string())
      info.started_at = v->get<std::string>();
    if (auto* v = get(*run, "duration_s"); v && v->is_number()) info.duration_s = v->get<double>();
    if (auto* v = get(*run, "interrupted"); v && v->is_boolean()) info.interrupted = v->get<bool>();
    if (auto* v = get(*run, "bucket_interval_ms"); v && v->is_number())
      info.bucket_interval_ms = v->get<double>();
  }
  // The engine's loop-lag probes are not in the records: the verdict keeps the run's.
  if (auto* health = get(s, "client_health"))
    if (auto* loop = get(*health, "loop"); loop && loop->is_object()) {
      if (auto* v = get(*loop, "workers"); v && v->is_number_integer())
        info.client_loop.workers = v->get<int>();
      if (auto* v = get(*loop, "ticks"); v && v->is_number_integer())
        info.client_loop.ticks = v->get<int64_t>();
      if (auto* v = get(*loop, "late_ticks"); v && v->is_number_integer())
        info.client_loop.late_ticks = v->get<int64_t>();
      if (auto* v = get(*loop, "max_lag_ms"); v && v->is_number())
        info.client_loop.max_lag_ms = v->get<double>();
    }
  if (auto* load = get(s, "load")) {
    if (auto* v = get(*load, "mode"); v && v->is_string()) info.load_mode = v->get<std::string>();
    if (auto* v = get(*load, "concurrency"); v && v->is_number_integer())
      info.concurrency = v->get<int>();
    if (auto* v = get(*load, "target_rate"); v && v->is_number())
      info.target_rate = v->get<double>();
    if (auto* v = get(*load, "max_concurrency"); v && v->is_number_integer())
      info.max_concurrency = v->get<int>();
  }
  if (auto* abandonment = get(s, "abandonment"))
    if (auto* v = get(*abandonment, "after_s"); v && v->is_number())
      info.abandon_after_s = v->get<double>();
  if (auto* goodput = get(s, "goodput"))
    if (auto* slo = get(*goodput, "slo")) {
      if (auto* v = get(*slo, "ttft_ms"); v && v->is_number()) info.slo.ttft_ms = v->get<double>();
      if (auto* v = get(*slo, "tpot_ms"); v && v->is_number()) info.slo.tpot_ms = v->get<double>();
      if (auto* v = get(*slo, "e2e_ms"); v && v->is_number()) info.slo.e2e_ms = v->get<double>();
    }
}

int run_summarize(const SummarizeFlags& f) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(f.dir))
    throw usage_error(
        fmt::format("summarize: '{}' is not a folder (give a run's output folder)", f.dir));
  const std::string jsonl = (fs::path(f.dir) / "requests.jsonl").string();
  const std::string old_summary = (fs::path(f.dir) / "summary.json").string();
  if (!fs::exists(jsonl))
    throw usage_error(
        fmt::format("summarize: cannot read {} (is the folder a servebench run's "
                    "output, e.g. runs/<time>-<api>/?)",
                    jsonl));
  metrics::RunInfo info;
  info.tool_version = SERVEBENCH_VERSION;
  bool had_summary = false;
  if (std::ifstream in(old_summary); in) {
    const auto s = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (s.is_object()) {
      apply_old_summary(s, info);
      had_summary = true;
    } else {
      fmt::print(stderr, "servebench: {} is not valid JSON; using defaults for the run's config\n",
                 old_summary);
    }
  }
  if (!had_summary) info.interrupted = true;  // the run never wrote its summary
  if (info.telemetry.is_null())
    if (auto t = telemetry::telemetry_from_jsonl((fs::path(f.dir) / "telemetry.jsonl").string()))
      info.telemetry = std::move(*t);
  if (!info.config.is_object()) info.config = nlohmann::json::object();
  info.config["summarized_from"] = "requests.jsonl";
  if (!f.goodput.empty()) info.slo = metrics::parse_goodput_flags(f.goodput);
  if (!f.bucket_interval.empty())
    info.bucket_interval_ms = parse_duration_ms(f.bucket_interval, "--bucket-interval");

  // One pass, holding no records (metrics/run_accumulator.h).
  std::optional<metrics::RunAccumulator> acc(std::in_place, info);
  int64_t last_end_ns = 0;
  const results::RequestLogScan scan = results::scan_request_log(
      jsonl,
      [&](const metrics::RequestRecord& r) {
        acc->add(r);
        if (r.t_end_ns != metrics::kNoTime) last_end_ns = std::max(last_end_ns, r.t_end_ns);
      },
      [&] {
        acc.emplace(info);
        last_end_ns = 0;
      });
  if (scan.skipped_lines > (scan.last_line_cut ? 1 : 0))
    throw usage_error(fmt::format("summarize: {} {}", jsonl, scan.first_error));
  if (!had_summary) info.duration_s = static_cast<double>(last_end_ns) / 1e9;
  const metrics::RunSummary summary = acc->finish(info);
  results::write_run_outputs(f.dir, summary, info);
  if (!f.quiet) fmt::print("{}\n", report::format_terminal_summary(summary));
  if (scan.last_line_cut)
    fmt::print(stderr, "servebench: skipped the cut last line of {}\n", jsonl);
  fmt::print(stderr, "servebench: rebuilt {}/summary.json and summary.csv from {} requests{}\n",
             f.dir, scan.records,
             had_summary ? " (run config from the old summary.json)"
                         : " (no summary.json: default run config)");
  return 0;
}

}  // namespace

std::function<int()> add_summarize_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "summarize", "Rebuild summary.json and summary.csv of a run folder from its requests.jsonl");
  auto flags = std::make_shared<SummarizeFlags>();
  app->add_option("DIR", flags->dir, "The run's output folder (holds requests.jsonl)")->required();
  app->add_option("--goodput", flags->goodput,
                  "SLO for goodput: ttft:MS, tpot:MS or e2e:MS (repeatable; default: the run's)");
  app->add_option("--bucket-interval", flags->bucket_interval,
                  "Time-series bucket in ms (default: the run's, else 1000)");
  app->add_flag("-q,--quiet", flags->quiet, "Print no summary table");
  return [flags] { return run_summarize(*flags); };
}

}  // namespace sb::cli
