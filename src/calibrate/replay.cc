#include "calibrate/replay.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "metrics/distribution.h"
#include "net/url.h"
#include "protocol/adapter.h"
#include "results/request_log_read.h"

namespace sb::calibrate {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_summary(const std::string& dir) {
  const fs::path p = fs::path(dir) / "summary.json";
  std::ifstream in(p);
  if (!in)
    throw usage_error(fmt::format(
        "calibrate: '{}' has no summary.json: give run folders (a sweep's level folders, a "
        "plan's run folders)",
        dir));
  json j = json::parse(in, nullptr, false);
  if (!j.is_object()) throw usage_error(fmt::format("calibrate: {} is not JSON", p.string()));
  return j;
}

template <class T>
T value_or(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

// The request shapes by id, and the shape summary of the measured ones.
void shapes_of(const std::vector<metrics::RequestRecord>& records, int64_t default_output,
               MeasuredRun& run, std::vector<workload::ReplayLength>& out) {
  uint64_t max_id = 0;
  for (const auto& r : records) max_id = std::max(max_id, r.id);
  out.assign(max_id + 1, workload::ReplayLength{});
  std::vector<bool> seen(max_id + 1, false);
  std::vector<double> in_tokens, out_tokens;
  for (const auto& r : records) {
    workload::ReplayLength& l = out[r.id];
    l.input_tokens = std::max<int64_t>(1, r.input_tokens);
    l.max_tokens =
        r.ok() && r.output_tokens > 0 ? r.output_tokens : std::max<int64_t>(1, default_output);
    l.request_class = r.request_class;
    seen[r.id] = true;
    if (r.warmup) {
      ++run.warmup_requests;
      continue;
    }
    ++run.measured_requests;
    in_tokens.push_back(static_cast<double>(l.input_tokens));
    if (r.ok()) out_tokens.push_back(static_cast<double>(r.output_tokens));
  }
  for (size_t i = 0; i < out.size(); ++i)  // ids without a record: the first one's shape
    if (!seen[i]) out[i] = out[records.front().id];
  const auto d_in = metrics::distribution_of(in_tokens);
  const auto d_out = metrics::distribution_of(out_tokens);
  run.shape.input_tokens_mean = d_in.mean;
  run.shape.input_tokens_p90 = d_in.p90;
  run.shape.output_tokens_mean = d_out.mean;
  run.shape.output_tokens_p90 = d_out.p90;
}

// The replayed load: the run's, in model time, bounded by its measured request count.
engine::LoadConfig load_of(const json& load, const MeasuredRun& run, const std::string& dir) {
  engine::LoadConfig l;
  const std::string mode = value_or<std::string>(load, "mode", "closed");
  l.warmup = run.warmup_requests;
  l.num_requests = run.measured_requests;
  l.seed = value_or<uint64_t>(load, "seed", 0);
  if (mode == "closed") {
    l.mode = engine::LoadMode::closed;
    l.concurrency = value_or<int64_t>(load, "concurrency", 1);
    return l;
  }
  if (mode != "open")
    throw usage_error(fmt::format("calibrate: {}: unknown load mode '{}'", dir, mode));
  l.mode = engine::LoadMode::open;
  l.request_rate = value_or<double>(load, "request_rate", 0) * run.time_scale;
  const auto arrival = load::arrival_from_string(value_or<std::string>(load, "arrival", "poisson"));
  l.arrival = arrival.value_or(load::Arrival::poisson);
  l.burstiness = value_or<double>(load, "burstiness", 1.0);
  // The rate's shape, its durations in model time as the rate is.
  l.rate_pattern = load::parse_rate_pattern(value_or<std::string>(load, "rate_pattern", "steady"));
  for (double* s : {&l.rate_pattern.period_s, &l.rate_pattern.on_s, &l.rate_pattern.off_s,
                    &l.rate_pattern.at_s, &l.rate_pattern.decay_s})
    *s /= run.time_scale;
  l.max_concurrency = value_or<int64_t>(load, "max_concurrency", 0);
  if (!(l.request_rate > 0))
    throw usage_error(fmt::format("calibrate: {}: an open-loop run without a request rate", dir));
  return l;
}

}  // namespace

MeasuredRun read_measured_run(const std::string& dir) {
  const json summary = read_summary(dir);
  const json config = summary.value("config", json::object());
  const results::SummaryView view = results::summary_from_json(summary);
  const fs::path log = fs::path(dir) / "requests.jsonl";
  if (!fs::exists(log))
    throw usage_error(fmt::format(
        "calibrate: '{}' has no requests.jsonl: calibrate replays each measured request (its "
        "prompt and output tokens), so it needs the run's requests.jsonl",
        dir));
  const results::RequestLogContents contents = results::read_request_log(log.string());
  MeasuredRun run;
  run.dir = dir;
  run.time_scale = view.facts.time_scale();
  if (contents.records.empty())
    throw usage_error(fmt::format("calibrate: {}: requests.jsonl holds no request", dir));
  std::vector<workload::ReplayLength> lengths;
  const json workload = config.value("workload", json::object());
  shapes_of(contents.records, value_or<int64_t>(workload, "output_tokens", 128), run, lengths);
  if (run.measured_requests == 0)
    throw usage_error(fmt::format("calibrate: {}: no measured (non-warm-up) request", dir));

  engine::EngineConfig& e = run.replay;
  e.client.url = net::parse_url("http://127.0.0.1:9");  // virtual time: nothing is contacted
  const std::string api = value_or<std::string>(config, "api", "openai");
  const auto parsed = protocol::api_from_string(api);
  if (!parsed || *parsed == protocol::Api::generic)
    throw usage_error(
        fmt::format("calibrate: {}: api '{}' cannot be replayed (use runs of --api {})", dir, api,
                    protocol::api_choices(false)));
  e.adapter.api = *parsed;
  e.adapter.stream = value_or<bool>(config, "stream", true);
  e.adapter.model = value_or<std::string>(config, "model", "");
  e.adapter.ignore_eos = true;
  e.workload.replay =
      std::make_shared<const std::vector<workload::ReplayLength>>(std::move(lengths));
  e.load = load_of(config.value("load", json::object()), run, dir);
  e.workers = 1;
  run.closed = e.load.mode == engine::LoadMode::closed;
  run.level_value = run.closed ? static_cast<double>(e.load.concurrency) : e.load.request_rate;
  run.level = run.closed ? fmt::format("c{}", e.load.concurrency)
                         : fmt::format("r{:g}", e.load.request_rate);
  run.measured = metrics_of_summary(view, run.time_scale);
  run.shape.api = api;
  run.shape.stream = e.adapter.stream;
  run.shape.model = e.adapter.model;
  run.shape.sim_preset = view.facts.sim_preset.value_or("");
  return run;
}

void check_same_workload(const std::vector<MeasuredRun>& runs, double tol) {
  if (runs.empty()) throw usage_error("calibrate: no run folder given");
  const WorkloadShape& a = runs.front().shape;
  const auto differ = [tol](double x, double y) {
    return std::abs(x - y) > tol * std::max(std::abs(x), std::abs(y));
  };
  for (const MeasuredRun& r : runs) {
    const WorkloadShape& b = r.shape;
    std::string what;
    if (b.api != a.api)
      what = fmt::format("api {} vs {}", a.api, b.api);
    else if (b.model != a.model)
      what = fmt::format("model '{}' vs '{}'", a.model, b.model);
    else if (b.sim_preset != a.sim_preset)
      what = fmt::format("simulator '{}' vs '{}'", a.sim_preset, b.sim_preset);
    else if (b.stream != a.stream)
      what = "streamed vs whole responses";
    else if (differ(a.input_tokens_mean, b.input_tokens_mean) ||
             differ(a.input_tokens_p90, b.input_tokens_p90))
      what =
          fmt::format("input tokens mean/p90 {:.0f}/{:.0f} vs {:.0f}/{:.0f}", a.input_tokens_mean,
                      a.input_tokens_p90, b.input_tokens_mean, b.input_tokens_p90);
    else if (differ(a.output_tokens_mean, b.output_tokens_mean) ||
             differ(a.output_tokens_p90, b.output_tokens_p90))
      what =
          fmt::format("output tokens mean/p90 {:.0f}/{:.0f} vs {:.0f}/{:.0f}", a.output_tokens_mean,
                      a.output_tokens_p90, b.output_tokens_mean, b.output_tokens_p90);
    if (!what.empty())
      throw usage_error(fmt::format(
          "calibrate: {} and {} are not runs of one server and workload ({}; lengths may "
          "differ by {:.0f}% at most): give the load levels of one server, API, model and "
          "workload",
          runs.front().dir, r.dir, what, tol * 100));
  }
  std::set<std::pair<bool, double>> levels;
  for (const MeasuredRun& r : runs) levels.insert({r.closed, r.level_value});
  if (levels.size() < 3)
    throw usage_error(fmt::format(
        "calibrate: {} run folder{} at {} distinct load level{}: a fit needs at least 3 "
        "levels (e.g. a sweep at --concurrency 1,4,16, or --request-rate 1,2,4)",
        runs.size(), runs.size() == 1 ? "" : "s", levels.size(), levels.size() == 1 ? "" : "s"));
}

}  // namespace sb::calibrate
