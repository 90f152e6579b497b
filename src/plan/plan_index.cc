#include "plan/plan_index.h"

#include <ctime>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/run_outputs.h"

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

}  // namespace

PlanIndex::PlanIndex(std::string dir, std::string plan_name)
    : dir_(std::move(dir)), plan_(std::move(plan_name)), started_at_(now_utc()) {}

void PlanIndex::add(IndexRow row) {
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
      "slo_met,cold_start_s,error\n";
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
                    {"error", r.error.empty() ? json(nullptr) : json(r.error)},
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
                    {"slo_met", r.slo_met}});
    csv += fmt::format("{},{},{},{},{},{:g},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       csv_text(r.provider), csv_text(r.scenario), csv_text(r.stage), r.kind,
                       r.load_kind, r.load_level, csv_text(r.folder), r.status, h.requests,
                       csv_num(h.ttft_p50_ms), csv_num(h.ttft_p99_ms), csv_num(h.e2e_p50_ms),
                       csv_num(h.e2e_p99_ms), csv_num(h.qps), csv_num(h.output_tokens_per_s),
                       r.status == "ok" ? csv_num(h.error_rate) : std::string(),
                       csv_num(h.goodput_fraction), r.slo_met ? "true" : "false",
                       csv_num(r.cold_start_s), csv_text(r.error));
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
                        {"stop_reason", s.stop_reason}});
  const json index = {{"schema", "servebench.plan-index/1"},
                      {"plan", plan_},
                      {"started_at", started_at_},
                      {"finished", finished},
                      {"runs", runs},
                      {"searches", searches}};
  report::write_file_atomically(dir_ + "/index.json", index.dump(2) + "\n");
  report::write_file_atomically(dir_ + "/index.csv", csv);
}

std::string PlanIndex::comparison_table() const {
  struct Cell {
    std::string p99_at;  // "812 ms @ c16"
    double peak_qps = -1;
    std::string peak_at;
    std::string knee = "-", max_stable = "-";
    int failed = 0;
    double stable_level = -1;
  };
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  for (const auto& r : runs_) {
    const auto key = std::pair(r.provider, r.scenario);
    if (!cells.count(key)) order.push_back(key);
    Cell& c = cells[key];
    if (r.status != "ok") {
      ++c.failed;
      continue;
    }
    if ((r.kind == "baseline" || r.kind == "soak") && c.p99_at.empty() && r.headline.e2e_p99_ms)
      c.p99_at = fmt::format("{:.0f} ms @ {}", *r.headline.e2e_p99_ms,
                             level_text(r.load_kind, r.load_level));
    if (r.kind == "sweep" && r.slo_met && r.headline.error_rate <= 0.05 &&
        (c.stable_level < 0 || r.load_level > c.stable_level)) {
      c.stable_level = r.load_level;  // without a search: the highest stable sweep level
      c.max_stable = level_text(r.load_kind, r.load_level);
    }
    if (r.headline.qps && *r.headline.qps > c.peak_qps) {
      c.peak_qps = *r.headline.qps;
      c.peak_at = level_text(r.load_kind, r.load_level);
    }
  }
  for (const auto& s : searches_) {
    auto it = cells.find({s.provider, s.scenario});
    if (it == cells.end()) continue;
    if (s.knee && it->second.knee == "-") it->second.knee = fmt::format("{:g}", *s.knee);
    if (s.max_stable)
      it->second.max_stable = s.kind == "rate_search" ? fmt::format("{:g}/s", *s.max_stable)
                                                      : fmt::format("{:g}", *s.max_stable);
  }
  std::string out =
      fmt::format("{:<16} {:<9} {:>18} {:>10} {:>9} {:>6} {:>10} {:>6}\n", "provider", "scenario",
                  "p99 e2e @ load", "peak QPS", "at", "knee", "max stable", "failed");
  for (const auto& key : order) {
    const Cell& c = cells[key];
    out += fmt::format("{:<16} {:<9} {:>18} {:>10} {:>9} {:>6} {:>10} {:>6}\n", key.first,
                       key.second.empty() ? "-" : key.second, c.p99_at.empty() ? "-" : c.p99_at,
                       c.peak_qps < 0 ? std::string("-") : fmt::format("{:.2f}", c.peak_qps),
                       c.peak_at.empty() ? "-" : c.peak_at, c.knee, c.max_stable, c.failed);
  }
  return out;
}

}  // namespace sb::plan
