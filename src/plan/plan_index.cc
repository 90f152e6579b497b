#include "plan/plan_index.h"

#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/redact.h"
#include "report/economics.h"
#include "report/gpu_use.h"
#include "report/run_folder.h"
#include "report/study_tables.h"
#include "results/run_outputs.h"
#include "results/summary_read.h"

namespace sb::plan {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string csv_num(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : "";
}

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string level_text(const std::string& kind, double v) {
  return kind == "rate" ? fmt::format("{:g}/s", v) : fmt::format("{:g}", v);
}

// The row's energy and cost columns from its summary.
void add_economics(const results::SummaryView& v, IndexRow& row) {
  row.hardware = v.facts.hardware.value_or("");
  row.precision = v.facts.precision.value_or("");
  if (v.facts.gpus) row.gpus = static_cast<double>(*v.facts.gpus);
  if (v.energy && v.energy->available.value_or(false)) {
    row.mean_power_w = v.energy->total.mean_power_w;
    row.energy_j = v.energy->total.energy_j;
    row.j_per_output_token = v.energy->total.j_per_output_token;
    row.output_tokens_per_j = v.energy->total.output_tokens_per_j;
  }
  if (v.cost) {
    row.usd_per_million_output_tokens = v.cost->usd_per_million_output_tokens;
    row.usd_per_1000_requests = v.cost->usd_per_1000_requests;
  }
}

// "at_slo" and "cheapest" of index.json (plan_index.h).
std::pair<json, json> economics_json(const std::vector<IndexRow>& runs) {
  std::map<std::pair<std::string, std::string>, const IndexRow*> best;  // highest load met
  std::vector<std::pair<std::string, std::string>> order;
  for (const IndexRow& r : runs) {
    if (r.status != "ok" || !r.slo_met || r.kind == "launch") continue;
    const auto key = std::make_pair(r.provider, r.scenario);
    auto [it, fresh] = best.try_emplace(key, &r);
    if (fresh)
      order.push_back(key);
    else if (r.load_kind == it->second->load_kind && r.load_level > it->second->load_level)
      it->second = &r;
  }
  json at_slo = json::array();
  std::map<std::string, std::vector<const IndexRow*>> priced;  // scenario -> rows
  for (const auto& key : order) {
    const IndexRow& r = *best[key];
    at_slo.push_back({{"provider", r.provider},
                      {"scenario", r.scenario},
                      {"load_kind", r.load_kind},
                      {"load_level", r.load_level},
                      {"folder", r.folder},
                      {"usd_per_million_output_tokens", opt(r.usd_per_million_output_tokens)},
                      {"j_per_output_token", opt(r.j_per_output_token)},
                      {"output_tokens_per_s", opt(r.headline.output_tokens_per_s)}});
    if (r.usd_per_million_output_tokens) priced[r.scenario].push_back(&r);
  }
  json cheapest = json::array();
  for (auto& [scenario, rows] : priced) {
    std::stable_sort(rows.begin(), rows.end(), [](const IndexRow* a, const IndexRow* b) {
      return *a->usd_per_million_output_tokens < *b->usd_per_million_output_tokens;
    });
    const double c0 = *rows[0]->usd_per_million_output_tokens;
    json c = {{"scenario", scenario},
              {"provider", rows[0]->provider},
              {"load_level", rows[0]->load_level},
              {"usd_per_million_output_tokens", c0},
              {"next_provider", nullptr},
              {"margin_pct", nullptr}};
    if (rows.size() > 1) {
      c["next_provider"] = rows[1]->provider;
      if (c0 > 0) c["margin_pct"] = (*rows[1]->usd_per_million_output_tokens - c0) / c0 * 100;
    }
    cheapest.push_back(c);
  }
  return {at_slo, cheapest};
}

}  // namespace

PlanIndex::PlanIndex(std::string dir, std::string plan_name)
    : dir_(std::move(dir)), plan_(std::move(plan_name)), started_at_(now_utc()) {}

void PlanIndex::add(IndexRow row) {
  const auto file = std::filesystem::path(dir_) / row.folder / "summary.json";
  std::error_code unreadable;  // a folder that cannot be read counts as one without a summary
  if (!row.folder.empty() && std::filesystem::exists(file, unreadable)) {
    try {
      const json s = report::load_summary(file, /*time_series=*/false);
      const report::GpuUse g = report::gpu_use_of(s);
      row.gpu_mem_used_peak_mib = g.mem_used_peak_mib;
      row.sm_util_mean_pct = g.sm_util_mean_pct;
      row.mem_bw_util_mean_pct = g.mem_bw_util_mean_pct;
      const results::SummaryView v = results::summary_from_json(s);
      row.sim_time_scale = v.facts.sim_time_scale;
      add_economics(v, row);
    } catch (const std::exception&) {
      // A summary that cannot be read leaves the row without its GPU and economics columns.
    }
  }
  runs_.push_back(std::move(row));
}
void PlanIndex::add(SearchRow row) {
  searches_.push_back(std::move(row));
}

void PlanIndex::write(bool finished) const {
  json runs = json::array();
  std::string csv =
      "provider,scenario,stage,kind,load_kind,load_level,folder,status,requests,ttft_p50_ms,"
      "ttft_p99_ms,e2e_p50_ms,e2e_p99_ms,qps,output_tokens_per_s,error_rate,goodput_fraction,"
      "slo_met,cold_start_s,gpu_mem_used_peak_mib,sm_util_mean_pct,mem_bw_util_mean_pct,"
      "sim_time_scale,hardware,precision,gpus,mean_power_w,energy_j,j_per_output_token,"
      "output_tokens_per_j,usd_per_million_output_tokens,usd_per_1000_requests,error\n";
  for (const auto& r : runs_) {
    const Headline& h = r.headline;
    runs.push_back({{"provider", r.provider},
                    {"scenario", r.scenario},
                    {"stage", r.stage},
                    {"kind", r.kind},
                    {"load_kind", r.load_kind},
                    {"load_level", r.load_level},
                    {"folder", r.folder},
                    {"status", r.status},
                    {"error", r.error.empty() ? json(nullptr) : json(redact_text(r.error))},
                    {"cold_start_s", opt(r.cold_start_s)},
                    {"requests", h.requests},
                    {"ttft_p50_ms", opt(h.ttft_p50_ms)},
                    {"ttft_p99_ms", opt(h.ttft_p99_ms)},
                    {"e2e_p50_ms", opt(h.e2e_p50_ms)},
                    {"e2e_p99_ms", opt(h.e2e_p99_ms)},
                    {"qps", opt(h.qps)},
                    {"output_tokens_per_s", opt(h.output_tokens_per_s)},
                    {"error_rate", r.status == "ok" ? json(h.error_rate) : json(nullptr)},
                    {"goodput_fraction", opt(h.goodput_fraction)},
                    {"slo_met", r.slo_met},
                    {"gpu_mem_used_peak_mib", opt(r.gpu_mem_used_peak_mib)},
                    {"sm_util_mean_pct", opt(r.sm_util_mean_pct)},
                    {"mem_bw_util_mean_pct", opt(r.mem_bw_util_mean_pct)},
                    {"sim_time_scale", opt(r.sim_time_scale)},
                    {"hardware", r.hardware.empty() ? json(nullptr) : json(r.hardware)},
                    {"precision", r.precision.empty() ? json(nullptr) : json(r.precision)},
                    {"gpus", opt(r.gpus)},
                    {"mean_power_w", opt(r.mean_power_w)},
                    {"energy_j", opt(r.energy_j)},
                    {"j_per_output_token", opt(r.j_per_output_token)},
                    {"output_tokens_per_j", opt(r.output_tokens_per_j)},
                    {"usd_per_million_output_tokens", opt(r.usd_per_million_output_tokens)},
                    {"usd_per_1000_requests", opt(r.usd_per_1000_requests)}});
    csv += fmt::format(
        "{},{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{"
        "},"
        "{},{},{}\n",
        csv_text(r.provider), csv_text(r.scenario), csv_text(r.stage), r.kind, r.load_kind,
        r.load_level, csv_text(r.folder), r.status, h.requests, csv_num(h.ttft_p50_ms),
        csv_num(h.ttft_p99_ms), csv_num(h.e2e_p50_ms), csv_num(h.e2e_p99_ms), csv_num(h.qps),
        csv_num(h.output_tokens_per_s), r.status == "ok" ? csv_num(h.error_rate) : std::string(),
        csv_num(h.goodput_fraction), r.slo_met ? "true" : "false", csv_num(r.cold_start_s),
        csv_num(r.gpu_mem_used_peak_mib), csv_num(r.sm_util_mean_pct),
        csv_num(r.mem_bw_util_mean_pct), csv_num(r.sim_time_scale), csv_text(r.hardware),
        csv_text(r.precision), csv_num(r.gpus), csv_num(r.mean_power_w), csv_num(r.energy_j),
        csv_num(r.j_per_output_token), csv_num(r.output_tokens_per_j),
        csv_num(r.usd_per_million_output_tokens), csv_num(r.usd_per_1000_requests),
        csv_text(redact_text(r.error)));
  }
  json searches = json::array();
  for (const auto& s : searches_)
    searches.push_back({{"provider", s.provider},
                        {"scenario", s.scenario},
                        {"stage", s.stage},
                        {"kind", s.kind},
                        {"knee", opt(s.knee)},
                        {"peak_qps", s.peak_qps},
                        {"peak_level", s.peak_level},
                        {"max_stable", opt(s.max_stable)},
                        {"one_wave", s.one_wave},
                        {"stop_reason", s.stop_reason}});
  const auto [at_slo, cheapest] = economics_json(runs_);
  const json index = {{"schema", "servebench.plan-index/1"},
                      {"plan", plan_},
                      {"started_at", started_at_},
                      {"finished", finished},
                      {"runs", runs},
                      {"searches", searches},
                      {"at_slo", at_slo},
                      {"cheapest", cheapest}};
  results::write_file_atomically(dir_ + "/index.json", index.dump(2) + "\n");
  results::write_file_atomically(dir_ + "/index.csv", csv);
}

std::string PlanIndex::comparison_table() const {
  std::vector<std::string> folders;
  int failed = 0;
  for (const auto& r : runs_) {
    const auto dir = std::filesystem::path(dir_) / r.folder;
    if (!r.folder.empty() && std::filesystem::exists(dir / "summary.json"))
      folders.push_back(dir.string());
    else
      ++failed;
  }
  std::string out;
  if (!folders.empty()) {
    try {
      // The study points into `runs`; its tables use no inter-token gaps nor time series.
      const std::vector<report::RunData> runs =
          report::load_runs(folders, {.inter_token_gaps = false, .time_series = false});
      const report::Study study = report::analyse_study(runs, {});
      out = report::study_text(study) + report::economics_text(study);
    } catch (const std::exception& e) {
      out = fmt::format("(no study tables: {})\n", e.what());
    }
  }
  for (const auto& s : searches_) {
    const char* kind = s.kind == "rate_search" ? "rate" : "concurrency";
    out += fmt::format(
        "{} {} {}: {} stopped ({}), knee {}, peak {}, max stable {}{}\n", s.provider,
        s.scenario.empty() ? "-" : s.scenario, s.stage, s.kind, s.stop_reason,
        s.knee ? fmt::format("{:g}", *s.knee) : "-",
        s.peak_qps > 0
            ? fmt::format("{:.4g} req/s at {}", s.peak_qps, level_text(kind, s.peak_level))
            : "-",
        s.max_stable ? level_text(kind, *s.max_stable) : "-",
        s.one_wave.empty()
            ? ""
            : fmt::format("; one wave, not ranked: concurrency {}", fmt::join(s.one_wave, ", ")));
  }
  if (failed > 0)
    out += fmt::format("{} run{} without results (failed before measuring)\n", failed,
                       failed == 1 ? "" : "s");
  return out;
}

}  // namespace sb::plan
