#include "report/run_analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "report/load_rules.h"
#include "report/time_scale.h"

namespace sb::report {

using nlohmann::json;

namespace {

constexpr const char* kStats[] = {"mean", "p50", "p90", "p95", "p99", "p999", "max"};
// ttft_content_ms is the TTFO; reasoning_ms (TTFO - TTFT) exists only when a request reasoned.
constexpr const char* kLatency[] = {"ttft_content_ms", "scheduled_e2e_ms", "ttft_ms",     "tpot_ms",
                                    "itl_ms",          "e2e_ms",           "reasoning_ms"};

std::string short_metric(const std::string& m) {
  return m.size() > 3 && m.ends_with("_ms") ? m.substr(0, m.size() - 3) : m;
}

// The rule's number in model time: a time-scaled simulator's latencies ÷ S, rates × S.
std::optional<double> sla_value(const results::SummaryView& s, const SlaRule& r) {
  const double scale = s.facts.time_scale();
  if (r.metric == "error_rate_pct") {
    auto e = results::error_rate(s);
    return e ? std::optional<double>(*e * 100) : std::nullopt;
  }
  if (r.metric == "min_rps") {
    auto q = s.throughput.requests_per_s;
    return q ? std::optional<double>(*q * scale) : std::nullopt;
  }
  if (r.metric == "min_goodput_pct") {
    auto f = s.goodput.fraction;
    return f ? std::optional<double>(*f * 100) : std::nullopt;
  }
  const results::DistributionView* d = s.metrics.find(r.metric);
  if (!d) return std::nullopt;
  auto v = d->stat(r.stat);
  return v ? std::optional<double>(*v / scale) : std::nullopt;
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
        "scheduled_e2e_ms|reasoning_ms), error_rate_pct:1, min_rps:10 or min_goodput_pct:95",
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
  return results::error_rate(results::summary_from_json(s));
}

std::vector<SlaResult> check_sla(const results::SummaryView& summary,
                                 const std::vector<SlaRule>& rules) {
  std::vector<SlaResult> out;
  for (const SlaRule& r : rules) {
    SlaResult res{r, sla_value(summary, r), r.missing_passes};
    if (res.value) res.pass = r.at_least ? *res.value >= r.limit : *res.value <= r.limit;
    out.push_back(res);
  }
  return out;
}

std::vector<SlaResult> check_sla(const json& summary, const std::vector<SlaRule>& rules) {
  return check_sla(results::summary_from_json(summary), rules);
}

std::vector<SlaRule> effective_rules(const results::SummaryView& summary,
                                     const std::vector<SlaRule>& given) {
  if (!given.empty()) return given;
  std::vector<SlaRule> out;
  const metrics::Slo& slo = summary.goodput.slo;
  for (const auto& [m, bound] :
       {std::pair{"ttft_ms", slo.ttft_ms}, std::pair{"tpot_ms", slo.tpot_ms},
        std::pair{"e2e_ms", slo.e2e_ms}})
    if (bound) {
      SlaRule r = parse_sla(fmt::format("p99_{}:{}", m, *bound));
      r.missing_passes = std::string_view(m) == "tpot_ms";  // as the plan's slo_met
      out.push_back(r);
    }
  return out;
}

std::vector<SlaRule> effective_rules(const json& summary, const std::vector<SlaRule>& given) {
  return effective_rules(results::summary_from_json(summary), given);
}

bool is_stable(const results::SummaryView& summary, const std::vector<SlaRule>& rules,
               double max_error_rate) {
  const auto total = summary.requests.total.value_or(0);
  bool met = true;
  for (const SlaResult& r : check_sla(summary, effective_rules(summary, rules)))
    met = met && r.pass;
  return stable_load(total, met, results::error_rate(summary).value_or(1), max_error_rate);
}

bool is_stable(const json& summary, const std::vector<SlaRule>& rules, double max_error_rate) {
  return is_stable(results::summary_from_json(summary), rules, max_error_rate);
}

std::string RunGroup::name() const {
  return backend + " · " + scenario;
}

std::vector<RunGroup> group_runs(const std::vector<RunData>& runs) {
  std::vector<RunGroup> groups;
  for (const RunData& r : runs) {
    const LoadPoint l = load_of(r.view);
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
      return load_of(a->view).value < load_of(b->view).value;
    });
  return groups;
}

std::string load_label(const std::string& kind, double value) {
  return kind == "rate" ? fmt::format("{} req/s", value) : fmt::format("concurrency {}", value);
}

}  // namespace sb::report
