#include "report/report_tables.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace sb::report {

using nlohmann::json;

namespace {

std::optional<double> m(const results::SummaryView& s, const char* metric, const char* stat) {
  const results::DistributionView* d = s.metrics.find(metric);
  return d ? d->stat(stat) : std::nullopt;
}

std::optional<double> num(const std::optional<int64_t>& n) {
  return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
}

std::optional<double> pct(std::optional<double> fraction) {
  return fraction ? std::optional<double>(*fraction * 100) : std::nullopt;
}

}  // namespace

std::string cell(std::optional<double> v, int decimals) {
  if (!v || !std::isfinite(*v)) return "—";
  return fmt::format("{:.{}f}", *v, decimals);
}

Table run_summary_table(const std::vector<RunData>& runs) {
  Table t{"runs",
          "Runs",
          {"run", "backend", "scenario", "load", "ok / total", "error %", "req/s", "output tok/s",
           "goodput req/s", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms", "TPOT p99 ms",
           "ITL p50 ms", "ITL p99 ms", "e2e p50 ms", "e2e p99 ms"},
          {}};
  for (const RunData& r : runs) {
    const results::SummaryView& s = r.view;
    const LoadPoint l = load_of(s);
    t.rows.push_back(
        {r.name, r.backend, r.scenario, load_label(l.kind, l.value),
         fmt::format("{} / {}", cell(num(s.requests.ok), 0), cell(num(s.requests.total), 0)),
         cell(pct(results::error_rate(s))), cell(s.throughput.requests_per_s),
         cell(s.throughput.output_tokens_per_s), cell(s.goodput.requests_per_s),
         cell(m(s, "ttft_ms", "p50")), cell(m(s, "ttft_ms", "p99")), cell(m(s, "tpot_ms", "p50")),
         cell(m(s, "tpot_ms", "p99")), cell(m(s, "itl_ms", "p50")), cell(m(s, "itl_ms", "p99")),
         cell(m(s, "e2e_ms", "p50")), cell(m(s, "e2e_ms", "p99"))});
  }
  return t;
}

std::vector<Table> comparison_tables(const std::vector<RunGroup>& groups) {
  std::vector<std::string> backends, scenarios;
  std::vector<std::pair<std::string, double>> loads;  // (kind, value)
  for (const RunGroup& g : groups) {
    if (std::find(backends.begin(), backends.end(), g.backend) == backends.end())
      backends.push_back(g.backend);
    if (std::find(scenarios.begin(), scenarios.end(), g.scenario) == scenarios.end())
      scenarios.push_back(g.scenario);
    for (const RunData* r : g.runs) {
      const std::pair<std::string, double> l{g.load_kind, load_of(r->view).value};
      if (std::find(loads.begin(), loads.end(), l) == loads.end()) loads.push_back(l);
    }
  }
  std::sort(loads.begin(), loads.end());
  std::vector<Table> out;
  for (const auto& [kind, value] : loads) {
    Table t;
    t.id = fmt::format("comparison-{}-{}", kind, value);
    t.title = fmt::format("P99 e2e latency and QPS at {}", load_label(kind, value));
    t.header.push_back("backend");
    for (const auto& s : scenarios) t.header.push_back(s);
    for (const auto& b : backends) {
      std::vector<std::string> row{b};
      for (const auto& sc : scenarios) {
        std::string c = "—";
        for (const RunGroup& g : groups) {
          if (g.backend != b || g.scenario != sc || g.load_kind != kind) continue;
          for (const RunData* r : g.runs)
            if (load_of(r->view).value == value) {
              c = fmt::format("P99 {} ms · {} req/s", cell(m(r->view, "e2e_ms", "p99"), 1),
                              cell(r->view.throughput.requests_per_s));
              // Quality beside speed when the run was scored against references.
              if (auto bleu = r->view.quality ? r->view.quality->bleu : std::nullopt)
                c += fmt::format(" · BLEU {} · chrF {}", cell(bleu, 1),
                                 cell(r->view.quality->chrf, 1));
            }
        }
        row.push_back(c);
      }
      t.rows.push_back(row);
    }
    out.push_back(t);
  }
  return out;
}

Table sla_table(const std::vector<RunData>& runs, const std::vector<SlaRule>& rules) {
  Table t{"sla", "SLA compliance", {"run", "backend", "scenario", "load"}, {}};
  for (const SlaRule& r : rules) t.header.push_back(r.describe());
  if (rules.empty()) return t;
  t.header.push_back("verdict");
  for (const RunData& run : runs) {
    const LoadPoint l = load_of(run.view);
    std::vector<std::string> row{run.name, run.backend, run.scenario, load_label(l.kind, l.value)};
    bool all = true;
    for (const SlaResult& res : check_sla(run.view, rules)) {
      all = all && res.pass;
      row.push_back(fmt::format("{} {}", res.pass ? "PASS" : "FAIL", cell(res.value)));
    }
    row.push_back(all ? "PASS" : "FAIL");
    t.rows.push_back(row);
  }
  return t;
}

const std::vector<std::pair<std::string, std::string>>& glossary() {
  static const std::vector<std::pair<std::string, std::string>> g = {
      {"t_sched",
       "intended send time: the schedule (open loop) or the moment the slot freed "
       "(closed loop)"},
      {"t_send", "the request's first byte was written to the socket"},
      {"TTFT",
       "time to first token: arrival of the first event carrying output or reasoning "
       "text minus t_send (a role-only chat chunk is not a token)"},
      {"TPOT",
       "time per output token: (e2e - TTFT) / (output_tokens - 1), excluding the first "
       "token; undefined for one token (vLLM TPOT, GenAI-Perf ITL)"},
      {"ITL",
       "inter-token latency: every gap between consecutive text-bearing events, pooled "
       "over requests (vLLM ITL)"},
      {"e2e", "end-to-end latency: last text-bearing event minus t_send"},
      {"scheduled e2e",
       "last text-bearing event minus t_sched: latency without coordinated "
       "omission"},
      {"req/s",
       "ok requests per second over the measured window (first send to last finish "
       "of measured requests, warm-up excluded)"},
      {"output tok/s", "output tokens of ok requests per second of the measured window"},
      {"goodput", "requests per second that were ok and met every --goodput SLO given to prof"},
      {"error rate", "failed / measured requests"},
      {"percentiles",
       "exact over every sample, linear interpolation between closest ranks "
       "(numpy's default)"},
      {"CDF", "fraction of samples (requests; gaps for ITL) whose value is at most x"},
      {"stable",
       "a run with measured requests, error rate at most the --max-error-rate of the "
       "report (default 5%, the plan's) and every SLO met: the --sla rules, else the run's own "
       "--goodput bounds as P99 limits; a time-scaled simulator's run is checked in model time"},
      {"judged",
       "a level (run) with at least --min-requests (30) measured requests; a latency cell needs "
       "as many ok samples. Anything less reads \"insufficient (n=…)\" and is never ranked"},
      {"max stable load",
       "the highest judged load whose run, and every judged run at a lower load, is stable"},
      {"peak QPS", "the highest req/s among the judged runs of one backend and scenario"},
      {"knee",
       "the last load before throughput gained under 5% while e2e p50 rose over 10% (the "
       "saturation search's rule)"},
      {"95% interval",
       "percentiles: the order-statistic (binomial) interval, exact; '>' marks an upper bound "
       "beyond the largest sample (P99 needs 367 samples for a closed one); means and rates: "
       "a seeded bootstrap"},
      {"simulated at ×S",
       "the run's simulator ran every modelled duration × S; ≈ values are model time (wall ÷ "
       "S, rates × S), client overhead included"},
  };
  return g;
}

}  // namespace sb::report
