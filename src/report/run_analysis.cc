#include "report/run_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::report {

using nlohmann::json;

namespace {

constexpr const char* kStats[] = {"mean", "p50", "p90", "p95", "p99", "p999", "max"};
constexpr const char* kLatency[] = {"ttft_content_ms", "scheduled_e2e_ms", "ttft_ms",
                                    "tpot_ms",         "itl_ms",           "e2e_ms"};

std::string short_metric(const std::string& m) {
  return m.size() > 3 && m.ends_with("_ms") ? m.substr(0, m.size() - 3) : m;
}

std::optional<double> sla_value(const json& s, const SlaRule& r) {
  if (r.metric == "error_rate_pct") {
    auto e = error_rate(s);
    return e ? std::optional<double>(*e * 100) : std::nullopt;
  }
  if (r.metric == "min_rps") return number_at(s, {"throughput", "requests_per_s"});
  if (r.metric == "min_goodput_pct") {
    auto f = number_at(s, {"goodput", "fraction"});
    return f ? std::optional<double>(*f * 100) : std::nullopt;
  }
  if (!s.contains("metrics") || !s["metrics"].contains(r.metric)) return std::nullopt;
  return number_at(s["metrics"][r.metric], {r.stat.c_str()});
}

}  // namespace

std::string SlaRule::describe() const {
  if (metric == "error_rate_pct") return fmt::format("error rate <= {}%", limit);
  if (metric == "min_rps") return fmt::format("throughput >= {} req/s", limit);
  if (metric == "min_goodput_pct") return fmt::format("goodput >= {}% of requests", limit);
  std::string s = stat;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  if (s == "P999") s = "P99.9";
  if (s == "MEAN") s = "mean";
  if (s == "MAX") s = "max";
  return fmt::format("{} {} <= {} ms", s, short_metric(metric), limit);
}

SlaRule parse_sla(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return usage_error(fmt::format(
        "--sla '{}': {}; use STAT_METRIC:LIMIT (e.g. p99_e2e_ms:200, p90_ttft_ms:500; STAT "
        "mean|p50|p90|p95|p99|p999|max, METRIC ttft_ms|ttft_content_ms|tpot_ms|itl_ms|e2e_ms|"
        "scheduled_e2e_ms), error_rate_pct:1, min_rps:10 or min_goodput_pct:95",
        text, why));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("no ':LIMIT'");
  SlaRule r;
  r.text = std::string(text);
  const std::string name(text.substr(0, colon));
  const std::string num(text.substr(colon + 1));
  try {
    size_t used = 0;
    r.limit = std::stod(num, &used);
    if (used != num.size() || !std::isfinite(r.limit) || r.limit < 0) throw bad("bad limit");
  } catch (const std::logic_error&) {
    throw bad("the limit is not a number");
  }
  if (name == "error_rate_pct" || name == "min_rps" || name == "min_goodput_pct") {
    r.metric = name;
    r.at_least = name != "error_rate_pct";
    return r;
  }
  const auto us = name.find('_');
  if (us == std::string::npos) throw bad("unknown metric");
  r.stat = name.substr(0, us);
  r.metric = name.substr(us + 1);
  if (!r.metric.ends_with("_ms")) r.metric += "_ms";  // "p99_e2e" is accepted
  if (std::find(std::begin(kStats), std::end(kStats), r.stat) == std::end(kStats))
    throw bad(fmt::format("unknown statistic '{}'", r.stat));
  if (std::find(std::begin(kLatency), std::end(kLatency), r.metric) == std::end(kLatency))
    throw bad(fmt::format("unknown metric '{}'", r.metric));
  return r;
}

std::optional<double> error_rate(const json& s) {
  const auto total = number_at(s, {"run", "requests", "total"});
  const auto failed = number_at(s, {"run", "requests", "failed"});
  if (!total || *total <= 0) return std::nullopt;
  return failed.value_or(0) / *total;
}

std::vector<SlaResult> check_sla(const json& summary, const std::vector<SlaRule>& rules) {
  std::vector<SlaResult> out;
  for (const SlaRule& r : rules) {
    SlaResult res{r, sla_value(summary, r), false};
    if (res.value) res.pass = r.at_least ? *res.value >= r.limit : *res.value <= r.limit;
    out.push_back(res);
  }
  return out;
}

bool is_stable(const json& summary, const std::vector<SlaRule>& rules, double max_error_rate) {
  const auto e = error_rate(summary);
  if (!e || *e > max_error_rate) return false;
  for (const SlaResult& r : check_sla(summary, rules))
    if (!r.pass) return false;
  return true;
}

std::string RunGroup::name() const {
  return backend + " · " + scenario;
}

std::vector<RunGroup> group_runs(const std::vector<RunData>& runs) {
  std::vector<RunGroup> groups;
  for (const RunData& r : runs) {
    const LoadPoint l = load_of(r.summary);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const RunGroup& g) {
      return g.backend == r.backend && g.scenario == r.scenario && g.load_kind == l.kind;
    });
    if (it == groups.end()) {
      groups.push_back({r.backend, r.scenario, l.kind, {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(&r);
  }
  for (RunGroup& g : groups)
    std::stable_sort(g.runs.begin(), g.runs.end(), [](const RunData* a, const RunData* b) {
      return load_of(a->summary).value < load_of(b->summary).value;
    });
  return groups;
}

std::optional<Peak> peak_qps(const RunGroup& g) {
  std::optional<Peak> best;
  for (const RunData* r : g.runs) {
    const auto q = number_at(r->summary, {"throughput", "requests_per_s"});
    if (q && (!best || *q > best->requests_per_s)) best = Peak{*q, load_of(r->summary).value, r};
  }
  return best;
}

std::optional<double> max_stable_load(const RunGroup& g, const std::vector<SlaRule>& rules,
                                      double max_error_rate) {
  std::optional<double> best;
  for (const RunData* r : g.runs) {
    if (!is_stable(r->summary, rules, max_error_rate)) break;
    best = load_of(r->summary).value;
  }
  return best;
}

std::string load_label(const std::string& kind, double value) {
  return kind == "rate" ? fmt::format("{} req/s", value) : fmt::format("concurrency {}", value);
}

std::vector<std::string> recommendations(const std::vector<RunGroup>& groups,
                                         const std::vector<SlaRule>& rules, double max_error_rate) {
  std::map<std::string, std::vector<const RunGroup*>> by_scenario;
  std::vector<std::string> order;
  for (const RunGroup& g : groups) {
    if (!by_scenario.count(g.scenario)) order.push_back(g.scenario);
    by_scenario[g.scenario].push_back(&g);
  }
  const std::string slos =
      rules.empty() ? fmt::format("an error rate <= {}%", max_error_rate * 100) : "every SLO";
  std::vector<std::string> out;
  for (const std::string& scenario : order) {
    const RunGroup* best = nullptr;
    double best_load = 0, best_p99 = INFINITY;
    for (const RunGroup* g : by_scenario[scenario]) {
      const auto load = max_stable_load(*g, rules, max_error_rate);
      if (!load) continue;
      double p99 = INFINITY;
      for (const RunData* r : g->runs)
        if (load_of(r->summary).value == *load)
          p99 = number_at(r->summary, {"metrics", "e2e_ms", "p99"}).value_or(INFINITY);
      if (!best || *load > best_load || (*load == best_load && p99 < best_p99)) {
        best = g;
        best_load = *load;
        best_p99 = p99;
      }
    }
    if (!best) {
      out.push_back(
          fmt::format("for {}: no backend met {} at any measured load; measure lower "
                      "loads or relax the SLOs",
                      scenario, slos));
      continue;
    }
    const bool alone = by_scenario[scenario].size() == 1;
    const std::string where = best->load_kind == "rate"
                                  ? fmt::format("≤ {} req/s", best_load)
                                  : fmt::format("≤ {} concurrent users", best_load);
    std::string s = fmt::format("for {} at {}, {} meets {}{}", scenario, where, best->backend, slos,
                                alone ? "" : " at the highest load");
    if (std::isfinite(best_p99)) s += fmt::format(" with P99 e2e {:.1f} ms", best_p99);
    if (auto peak = peak_qps(*best))
      s += fmt::format("; its peak is {:.1f} req/s at {}", peak->requests_per_s,
                       load_label(best->load_kind, peak->load));
    out.push_back(s);
  }
  return out;
}

}  // namespace sb::report
