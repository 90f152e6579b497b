#include "report/study.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.h"
#include "metrics/distribution.h"
#include "report/time_scale.h"

namespace sb::report {

using nlohmann::json;

namespace {

template <class T>
void add_unique(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

std::string ms_words(double ms) {
  if (ms >= 1000) return fmt::format("{:.3g} s", ms / 1000);
  return fmt::format("{:.3g} ms", ms);
}

Level level_of(const RunData& r, const StudyOptions& o) {
  Level l;
  l.run = &r;
  const results::SummaryView& s = r.view;
  const LoadPoint load = load_of(s);
  l.load = load.value;
  l.measured = s.requests.total.value_or(0);
  l.ok = s.requests.ok.value_or(0);
  l.error_rate = results::error_rate(s).value_or(1);
  l.time_scale = s.facts.time_scale();
  l.judged = l.measured >= o.min_requests;
  l.sustained = sustained_rate(load.kind == "concurrency", l.measured, l.load);
  l.slo_met = true;
  for (const SlaResult& res : check_sla(s, effective_rules(s, o.sla))) {
    if (res.pass) continue;
    l.slo_met = false;
    const SlaRule& rule = res.rule;
    if (!res.value)
      l.slo_misses.push_back(fmt::format("no {} (needed by {})", rule.metric, rule.describe()));
    else if (rule.metric.ends_with("_ms"))
      l.slo_misses.push_back(fmt::format("{} {} > {}",
                                         rule.describe().substr(0, rule.describe().find(" <=")),
                                         ms_words(*res.value), ms_words(rule.limit)));
    else
      l.slo_misses.push_back(fmt::format("{}: {:.3g}", rule.describe(), *res.value));
  }
  l.stable = stable_load(l.measured, l.slo_met, l.error_rate, o.max_error_rate);
  for (const auto& [cls, n] : s.errors)
    if (n > l.top_error_count) {
      l.top_error = cls;
      l.top_error_count = n;
    }
  l.qps = s.throughput.requests_per_s;
  l.e2e_p50_ms = s.metrics.e2e_ms.p50;
  return l;
}

void judge(Group& g) {
  const Level* prev = nullptr;
  bool failed = false;
  for (size_t i = 0; i < g.levels.size(); ++i) {
    const Level& l = g.levels[i];
    if (!l.judged) continue;
    if (l.sustained && l.qps && (!g.peak || *l.qps > *g.levels[*g.peak].qps)) g.peak = i;
    if (!failed) {
      if (l.stable) {
        g.max_stable = l.load;
      } else {
        g.first_unstable = i;
        failed = true;
      }
    }
    if (!l.sustained) continue;
    if (prev && !g.knee && prev->qps && l.qps && prev->e2e_p50_ms && l.e2e_p50_ms &&
        saturated(*prev->qps, *prev->e2e_p50_ms, *l.qps, *l.e2e_p50_ms, PlateauRule{}))
      g.knee = prev->load;
    prev = &l;
  }
}

}  // namespace

const Level* Group::at(double load) const {
  for (const Level& l : levels)
    if (l.load == load) return &l;
  return nullptr;
}

const Group* Study::group(const std::string& backend, const std::string& scenario) const {
  for (const Group& g : groups)
    if (g.backend == backend && g.scenario == scenario && g.load_kind == "concurrency") return &g;
  for (const Group& g : groups)
    if (g.backend == backend && g.scenario == scenario) return &g;
  return nullptr;
}

Study analyse_study(const std::vector<RunData>& runs, const StudyOptions& o) {
  Study st;
  st.options = o;
  std::vector<const json*> summaries;
  for (const RunGroup& rg : group_runs(runs)) {
    add_unique(st.backends, rg.backend);
    add_unique(st.scenarios, rg.scenario);
    Group g{rg.backend, rg.scenario, rg.load_kind, {}, {}, {}, {}, {}};
    for (const RunData* r : rg.runs) {
      g.levels.push_back(level_of(*r, o));
      summaries.push_back(&r->summary);
    }
    judge(g);
    st.groups.push_back(std::move(g));
  }
  st.scales = distinct_scales(summaries);
  st.runs = summaries.size();
  st.predicted = count_predicted(summaries);
  // The named load: the highest concurrency every backend was run at (in any scenario).
  std::map<std::string, std::vector<double>> levels_of;
  std::vector<double> all;
  for (const Group& g : st.groups)
    if (g.load_kind == "concurrency")
      for (const Level& l : g.levels) {
        add_unique(levels_of[g.backend], l.load);
        add_unique(all, l.load);
      }
  std::sort(all.begin(), all.end());
  if (o.at_concurrency) {
    if (std::find(all.begin(), all.end(), *o.at_concurrency) == all.end()) {
      std::string list;
      for (double v : all) list += (list.empty() ? "" : ", ") + fmt::format("{:g}", v);
      throw usage_error(fmt::format("--at-concurrency {:g}: no run was at that concurrency ({})",
                                    *o.at_concurrency,
                                    list.empty() ? "no closed-loop runs" : "runs at " + list));
    }
    st.at_load = o.at_concurrency;
    st.at_load_reason = "--at-concurrency";
  } else {
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      bool everyone = true;
      for (const std::string& b : st.backends)
        everyone = everyone && levels_of.count(b) &&
                   std::find(levels_of[b].begin(), levels_of[b].end(), *it) != levels_of[b].end();
      if (everyone) {
        st.at_load = *it;
        st.at_load_reason = "the highest concurrency run by every backend";
        break;
      }
    }
  }
  return st;
}

Estimate latency_percentile(const RunData& run, const char* metric, double p) {
  Estimate e;
  const std::string_view m(metric);
  if (run.has_requests) {
    const RequestSamples& rs = run.samples;
    std::vector<double> v = m == "ttft_ms" ? rs.ttft_ms : m == "tpot_ms" ? rs.tpot_ms : rs.e2e_ms;
    e.n = static_cast<int64_t>(v.size());
    if (v.empty()) return e;
    std::sort(v.begin(), v.end());
    e.value = metrics::percentile_sorted(v, p);
    e.ci = percentile_interval(v, p);
    return e;
  }
  const results::DistributionView* d = run.view.metrics.find(metric);
  if (!d) return e;
  e.n = d->count.value_or(0);
  e.value = p == 50 ? d->p50 : p == 90 ? d->p90 : d->p99;
  return e;
}

Estimate throughput_rps(const RunData& run) {
  Estimate e;
  e.value = run.view.throughput.requests_per_s;
  e.n = run.view.requests.ok.value_or(0);
  if (!run.has_requests || !e.value) return e;
  const RequestSamples& rs = run.samples;
  if (rs.completions.size() < 2 || rs.first_send_ns == metrics::kNoTime) return e;
  e.ci = rate_interval(rs.completion_gaps_s());
  return e;
}

std::string slo_words(const Study& st) {
  std::vector<std::string> seen;
  if (!st.options.sla.empty()) {
    for (const SlaRule& r : st.options.sla) seen.push_back(r.describe());
  } else {
    for (const Group& g : st.groups)
      for (const Level& l : g.levels)
        for (const SlaRule& r : effective_rules(l.run->view, {})) add_unique(seen, r.describe());
  }
  std::string out;
  for (const auto& p : seen) out += (out.empty() ? "" : ", ") + p;
  if (!seen.empty() && st.options.sla.empty()) out += " (the runs' --goodput)";
  if (!seen.empty() && !st.scales.empty()) out += " in model time";
  return out + fmt::format("{}error rate <= {:g}%", out.empty() ? "" : ", ",
                           st.options.max_error_rate * 100);
}

}  // namespace sb::report
