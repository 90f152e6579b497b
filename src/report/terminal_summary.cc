#include "report/terminal_summary.h"

#include <iterator>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace sb::report {

namespace {

using namespace sb::metrics;

std::string num(const std::optional<double>& v, int decimals = 2) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}

void latency_row(std::string& out, std::string_view name, const Distribution& d) {
  auto it = std::back_inserter(out);
  if (d.empty()) {
    fmt::format_to(it, "  {:<16}{:>11}{:>11}{:>11}{:>11}{:>11}{:>9}\n", name, "-", "-", "-", "-",
                   "-", 0);
    return;
  }
  fmt::format_to(it, "  {:<16}{:>11.2f}{:>11.2f}{:>11.2f}{:>11.2f}{:>11.2f}{:>9}\n", name, d.mean,
                 d.p50, d.p90, d.p99, d.max, d.count);
}

// TTFO (ttft_content) is shown only when it carries information beyond ttft (reasoning models).
bool differs(const Distribution& a, const Distribution& b) {
  return a.count != b.count || a.mean != b.mean || a.p99 != b.p99 || a.max != b.max;
}

std::optional<double> percent(const std::optional<double>& fraction) {
  return fraction ? std::optional<double>(*fraction * 100) : std::nullopt;
}

// One line per priority class (--priority-mix), most urgent first.
void priority_lines(std::string& out, const PrioritySummary& p) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "Priority:   fairness {} (lowest / highest class goodput fraction)\n",
                 num(p.fairness));
  const auto ms = [](const Distribution& d, double v) {
    return d.empty() ? std::string("-") : fmt::format("{:.2f}", v);
  };
  for (const auto& c : p.classes)
    fmt::format_to(it,
                   "  {:<10} priority {}: {} requests, {} ok; ttft p50 {} p99 {} ms; e2e p50 {} "
                   "p99 {} ms; goodput {} req/s, {}% met\n",
                   c.name, c.priority, c.requests, c.ok, ms(c.ttft_ms, c.ttft_ms.p50),
                   ms(c.ttft_ms, c.ttft_ms.p99), ms(c.e2e_ms, c.e2e_ms.p50),
                   ms(c.e2e_ms, c.e2e_ms.p99), num(c.goodput_requests_per_s),
                   num(percent(c.goodput_fraction), 1));
}

// "Energy: ..." and "Cost: ..." when the run has them (metrics/energy.h, metrics/cost.h).
void energy_lines(std::string& out, const RunSummary& s) {
  auto it = std::back_inserter(out);
  if (const auto& e = s.energy) {
    const char* base = e->time_base == "model" ? " (model time)" : "";
    if (!e->available) {
      fmt::format_to(it, "Energy:     - ({})\n", e->reason);
    } else {
      fmt::format_to(it, "Energy:     {:.4g} J over {:.2f} s{}, {:.4g} W mean; {} J/token",
                     e->total.energy_j, e->window_s, base, e->total.mean_power_w,
                     num(e->total.j_per_output_token, 3));
      if (e->above_idle)
        fmt::format_to(it, " ({} above {:.4g} W idle, {})",
                       num(e->above_idle->j_per_output_token, 3), *e->idle_power_w, e->idle_source);
      fmt::format_to(it, "; from {}\n", e->source);
    }
  }
  if (const auto& c = s.cost)
    fmt::format_to(it,
                   "Cost:       ${:.4g} at ${:.4g}/h ({}): ${} per million output tokens, ${} per "
                   "1,000 requests\n",
                   c->usd, c->rate.usd_per_hour, c->rate.source,
                   num(c->usd_per_million_output_tokens, 4), num(c->usd_per_1000_requests, 4));
}

}  // namespace

std::string format_terminal_summary(const RunSummary& s) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(
      it, "Requests: {} measured ({} ok, {} failed), {} warm-up; success {}%; window {:.2f} s\n",
      s.requests.total, s.requests.ok, s.requests.failed, s.requests.warmup,
      num(s.success_rate ? std::optional<double>(*s.success_rate * 100) : std::nullopt, 1),
      s.throughput.window_s);

  fmt::format_to(it, "\n  {:<16}{:>11}{:>11}{:>11}{:>11}{:>11}{:>9}\n", "latency (ms)", "mean",
                 "p50", "p90", "p99", "max", "count");
  const MetricSet& m = s.metrics;
  latency_row(out, "ttft", m.ttft_ms);
  if (differs(m.ttft_ms, m.ttft_content_ms)) latency_row(out, "ttfo", m.ttft_content_ms);
  if (!m.reasoning_ms.empty()) latency_row(out, "reasoning", m.reasoning_ms);
  latency_row(out, "tpot", m.tpot_ms);
  latency_row(out, "itl", m.itl_ms);
  latency_row(out, "e2e", m.e2e_ms);
  latency_row(out, "scheduled_e2e", m.scheduled_e2e_ms);
  latency_row(out, "dispatch_delay", m.dispatch_delay_ms);

  if (const Distribution& rt = m.reasoning_tokens; !rt.empty())
    fmt::format_to(it, "\nReasoning:  {:.1f} tokens mean, p50 {:.0f}, max {:.0f} ({} requests)\n",
                   rt.mean, rt.p50, rt.max, rt.count);

  const Throughput& t = s.throughput;
  fmt::format_to(it, "\nThroughput: {} req/s; tokens/s: {} in, {} out, {} total\n",
                 num(t.requests_per_s), num(t.input_tokens_per_s, 1), num(t.output_tokens_per_s, 1),
                 num(t.total_tokens_per_s, 1));
  if (t.items_per_s)
    fmt::format_to(it, "Items:      {} items/s (embeddings or documents scored)\n",
                   num(t.items_per_s, 1));

  if (s.goodput.slo.empty()) {
    out += "Goodput:    - (no --goodput SLO given)\n";
  } else {
    std::string slo;
    if (s.goodput.slo.ttft_ms) slo += fmt::format(" ttft<={}ms", *s.goodput.slo.ttft_ms);
    if (s.goodput.slo.tpot_ms) slo += fmt::format(" tpot<={}ms", *s.goodput.slo.tpot_ms);
    if (s.goodput.slo.e2e_ms) slo += fmt::format(" e2e<={}ms", *s.goodput.slo.e2e_ms);
    fmt::format_to(
        it, "Goodput:    {} req/s, {}% of requests met{}\n", num(s.goodput.requests_per_s),
        num(s.goodput.fraction ? std::optional<double>(*s.goodput.fraction * 100) : std::nullopt,
            1),
        slo);
  }

  if (s.priority) priority_lines(out, *s.priority);

  if (s.errors.empty()) {
    out += "Errors:     none\n";
  } else {
    out += "Errors:\n";
    for (const auto& [name, n] : s.errors) fmt::format_to(it, "  {:<24}{:>9}\n", name, n);
  }

  const LoadResult& l = s.load;
  if (l.mode == "open") {
    fmt::format_to(it, "Load:       open loop, target {} req/s, achieved {} req/s{}\n",
                   l.target_rate > 0 ? fmt::format("{:.2f}", l.target_rate) : std::string("-"),
                   num(l.achieved_rate),
                   l.max_concurrency > 0 ? fmt::format(", max concurrency {}", l.max_concurrency)
                                         : std::string());
  } else {
    fmt::format_to(it, "Load:       closed loop, concurrency {}, achieved {} req/s sent\n",
                   l.concurrency, num(l.achieved_rate));
  }
  fmt::format_to(it, "Late sends: {} (dispatch delay > 1 ms)\n", l.late_sends);
  if (s.trace) {
    const TraceInfo& ti = s.trace->info;
    const Distribution& lag = s.trace->schedule_lag_ms;
    fmt::format_to(
        it,
        "Trace:      {} '{}', {} entries ({} bad lines skipped), {:g}x speed over {:.1f} "
        "s; schedule lag p50 {:.2f} p99 {:.2f} max {:.2f} ms, {}% late\n",
        ti.format, ti.file, ti.entries, ti.skipped, ti.speedup, ti.span_s, lag.p50, lag.p99,
        lag.max,
        num(s.trace->late_share ? std::optional<double>(*s.trace->late_share * 100) : std::nullopt,
            1));
  }
  if (s.sessions) {
    // Per turn: TTFT p50 and the server's cached tokens against the ideal (the history).
    const metrics::SessionStats& ss = *s.sessions;
    std::string turns;
    for (const metrics::TurnStats& t : ss.by_turn) {
      if (!turns.empty()) turns += ", ";
      turns += fmt::format(
          "{} {} ms {}/{}", t.turn,
          num(t.ttft_ms.empty() ? std::nullopt : std::optional<double>(t.ttft_ms.p50), 1),
          t.cached_reported > 0 ? std::to_string(t.cached_tokens_sum) : "-", t.history_tokens_sum);
    }
    fmt::format_to(
        it,
        "Sessions:   {} ({} completed, {} turns ok, {} failed), duration p50 {} p99 {} "
        "s; by turn (TTFT p50, cached/ideal tokens): {}\n",
        ss.sessions, ss.completed, ss.turns_ok, ss.turns_failed,
        num(ss.duration_s.empty() ? std::nullopt : std::optional<double>(ss.duration_s.p50)),
        num(ss.duration_s.empty() ? std::nullopt : std::optional<double>(ss.duration_s.p99)),
        turns);
  }
  energy_lines(out, s);
  return out;
}

}  // namespace sb::report
