#include "report/economics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "quality/agreement.h"
#include "report/study_format.h"
#include "report/svg_chart.h"
#include "report/time_scale.h"

namespace sb::report {
namespace {

std::optional<double> times(const std::optional<double>& v, double k) {
  return v ? std::optional<double>(*v * k) : std::nullopt;
}

std::string slug(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return s;
}

// "BLEU 87.1 · chrF 92.3 · EM 64%" of `run`'s texts against the reference's; "—" when the
// two cannot be paired (no saved outputs, other prompts).
std::string agreement_cell(const RunData& ref, const RunData& run) {
  if (&ref == &run) return "reference";
  auto saved = [](const RunData& r) { return r.has_requests && saved_outputs(r); };
  if (!saved(ref) || !saved(run)) return "— (no --save-outputs)";
  if (!quality::fingerprint_differences(ref.summary, run.summary).empty())
    return "— (other prompts)";
  const quality::Agreement a =
      quality::compute_agreement(ref.samples.output_views(), run.samples.output_views());
  if (a.pairs == 0) return "— (no pairs)";
  return fmt::format("BLEU {:.1f} · chrF {:.1f} · EM {:.0f}% (n={})", a.bleu, a.chrf,
                     a.exact_match * 100, a.pairs);
}

std::string num_cell(const std::optional<double>& v, const char* fmt_spec) {
  return v ? fmt::format(fmt::runtime(fmt_spec), *v) : "—";
}

struct ParetoVariant {
  const char* id;     // "pareto", "pareto-energy", "pareto-cost"
  const char* title;  // "Output tok/s per GPU"
  svg::Axis y;
  bool lower_is_better;
  std::optional<double> RunEconomics::*field;
};

// The frontier of `all` (x higher is better; y as the variant says), ascending x.
svg::Series frontier(std::vector<svg::Point> all, bool lower_is_better) {
  // x descending; at equal x the better y first, so that the worse is not kept.
  std::sort(all.begin(), all.end(), [lower_is_better](const svg::Point& a, const svg::Point& b) {
    if (a.x != b.x) return a.x > b.x;
    return lower_is_better ? a.y < b.y : a.y > b.y;
  });
  svg::Series front{"Pareto frontier", {}, "#999999", "2 3"};
  double best = lower_is_better ? INFINITY : -INFINITY;
  for (const svg::Point& p : all)
    if (lower_is_better ? p.y < best : p.y > best) {
      front.points.push_back(p);
      best = p.y;
    }
  std::reverse(front.points.begin(), front.points.end());
  for (svg::Point& p : front.points) p.label.clear();  // labelled once, on its own series
  return front;
}

}  // namespace

RunEconomics economics_of(const RunData& run) {
  const results::SummaryView& v = run.view;
  const double s = v.facts.time_scale();
  RunEconomics e;
  e.gpus = static_cast<int>(std::max<int64_t>(1, v.facts.gpus.value_or(1)));
  e.hardware = v.facts.hardware.value_or("");
  e.precision = v.facts.precision.value_or("");
  e.tokens_per_s = times(v.throughput.output_tokens_per_s, s);
  e.tokens_per_s_per_gpu = times(e.tokens_per_s, 1.0 / e.gpus);
  const LoadPoint load = load_of(v);
  if (load.kind == "concurrency" && load.value > 0)
    e.tokens_per_s_per_user = times(e.tokens_per_s, 1.0 / load.value);
  if (v.energy && v.energy->available.value_or(false)) {
    e.mean_power_w = v.energy->total.mean_power_w;
    e.j_per_token = v.energy->total.j_per_output_token;
    e.tokens_per_j = v.energy->total.output_tokens_per_j;
    if (v.energy->above_idle) e.j_per_token_above_idle = v.energy->above_idle->j_per_output_token;
  }
  if (v.cost) {
    e.usd_per_million_tokens = v.cost->usd_per_million_output_tokens;
    e.usd_per_1000_requests = v.cost->usd_per_1000_requests;
  }
  return e;
}

bool has_economics(const std::vector<RunData>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const RunData& r) {
    const RunEconomics e = economics_of(r);
    return e.j_per_token || e.usd_per_million_tokens;
  });
}

std::vector<Cheapest> cheapest_meeting_slo(const Study& st) {
  std::vector<Cheapest> out;
  for (const std::string& sc : st.scenarios) {
    Cheapest c;
    c.scenario = sc;
    for (const std::string& b : st.backends) {
      const Group* g = st.group(b, sc);
      if (!g) continue;
      const Level* l = g->max_stable ? g->at(*g->max_stable) : nullptr;
      if (!l) {
        c.left_out.push_back(b + " (no load met the SLOs)");
        continue;
      }
      const RunEconomics e = economics_of(*l->run);
      if (!e.usd_per_million_tokens) {
        c.left_out.push_back(b + " (no price: --cost-per-hour)");
        continue;
      }
      c.ranked.push_back({b, l->load, g->load_kind, *e.usd_per_million_tokens, e.tokens_per_s});
    }
    std::stable_sort(c.ranked.begin(), c.ranked.end(), [](const auto& x, const auto& y) {
      return x.usd_per_million_tokens < y.usd_per_million_tokens;
    });
    auto words = [](const CheapestChoice& ch) {
      return fmt::format("{} at {}: ${:.4g} per million output tokens{}", ch.backend,
                         load_text(ch.load_kind, ch.load), ch.usd_per_million_tokens,
                         ch.tokens_per_s ? fmt::format(" ({:.4g} tok/s)", *ch.tokens_per_s) : "");
    };
    if (c.ranked.empty()) {
      c.text = fmt::format("{}: no backend met the SLOs at a priced load", sc);
    } else {
      c.text = fmt::format("{}: cheapest meeting the SLOs is {}", sc, words(c.ranked[0]));
      if (c.ranked.size() > 1 && c.ranked[0].usd_per_million_tokens > 0) {
        c.margin_pct = (c.ranked[1].usd_per_million_tokens - c.ranked[0].usd_per_million_tokens) /
                       c.ranked[0].usd_per_million_tokens * 100;
        c.text += fmt::format("; next {}, {:.1f}% dearer", words(c.ranked[1]), *c.margin_pct);
      }
    }
    if (!c.left_out.empty()) {
      std::string list;
      for (const auto& s : c.left_out) list += (list.empty() ? "" : ", ") + s;
      c.text += fmt::format(" (left out: {})", list);
    }
    out.push_back(std::move(c));
  }
  return out;
}

Table hardware_table(const Study& st, const std::string& reference) {
  Table t{"hardware",
          st.at_load ? fmt::format("Hardware and precision at concurrency {:g}", *st.at_load)
                     : "Hardware and precision (no common load)",
          {"backend", "scenario", "hardware", "precision", "GPUs", "output tok/s", "tok/s per GPU",
           "TTFT p50", "e2e P99", "power (W)", "J/token", "J/token above idle", "$/M tokens"},
          {}};
  const std::string ref = !reference.empty()    ? reference
                          : st.backends.empty() ? std::string()
                                                : st.backends.front();
  t.header.push_back("agreement with " + ref);
  if (!st.at_load) return t;
  for (const std::string& sc : st.scenarios) {
    const Group* rg = st.group(ref, sc);
    const Level* rl = rg ? rg->at(*st.at_load) : nullptr;
    for (const std::string& b : st.backends) {
      const Group* g = st.group(b, sc);
      const Level* l = g ? g->at(*st.at_load) : nullptr;
      if (!l) continue;
      const RunEconomics e = economics_of(*l->run);
      const double s = l->time_scale;
      auto ms = [&](const char* metric, const char* stat) -> std::string {
        const auto* d = l->run->view.metrics.find(metric);
        const auto v = d ? d->stat(stat) : std::nullopt;
        return v ? duration_text(*v / s) : "—";
      };
      t.rows.push_back(
          {b, sc, e.hardware.empty() ? "—" : e.hardware, e.precision.empty() ? "—" : e.precision,
           std::to_string(e.gpus), num_cell(e.tokens_per_s, "{:.1f}"),
           num_cell(e.tokens_per_s_per_gpu, "{:.1f}"), ms("ttft_ms", "p50"), ms("e2e_ms", "p99"),
           num_cell(e.mean_power_w, "{:.0f}"), num_cell(e.j_per_token, "{:.3g}"),
           num_cell(e.j_per_token_above_idle, "{:.3g}"),
           num_cell(e.usd_per_million_tokens, "{:.4g}"),
           rl ? agreement_cell(*rl->run, *l->run) : "— (reference not run here)"});
    }
  }
  return t;
}

std::vector<std::pair<std::string, std::string>> pareto_charts(
    const std::vector<RunGroup>& groups) {
  static const ParetoVariant kVariants[] = {{"pareto",
                                             "Output tok/s per GPU vs tok/s per user",
                                             {"output tok/s per GPU", "tok/s", {}, {}},
                                             false,
                                             &RunEconomics::tokens_per_s_per_gpu},
                                            {"pareto-energy",
                                             "Output tokens per joule vs tok/s per user",
                                             {"output tokens per joule", "tok/J", {}, {}},
                                             false,
                                             &RunEconomics::tokens_per_j},
                                            {"pareto-cost",
                                             "$ per million output tokens vs tok/s per user",
                                             {"$ per million output tokens", "USD", {}, {}},
                                             true,
                                             &RunEconomics::usd_per_million_tokens}};
  std::vector<std::string> backends, scenarios;
  for (const RunGroup& g : groups) {
    if (std::find(backends.begin(), backends.end(), g.backend) == backends.end())
      backends.push_back(g.backend);
    if (g.load_kind == "concurrency" &&
        std::find(scenarios.begin(), scenarios.end(), g.scenario) == scenarios.end())
      scenarios.push_back(g.scenario);
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const ParetoVariant& v : kVariants)
    for (const std::string& sc : scenarios) {
      svg::LineChart c;
      c.id = std::string(v.id) + "-" + slug(sc);
      c.title = fmt::format("{} — {}", v.title, sc);
      c.x = {"output tok/s per user", "tok/s", {}, {}};
      c.y = v.y;
      c.lines = true;
      std::vector<svg::Point> all;
      std::vector<const nlohmann::json*> summaries;
      for (const RunGroup& g : groups) {
        if (g.load_kind != "concurrency" || g.scenario != sc) continue;
        const size_t bi = std::find(backends.begin(), backends.end(), g.backend) - backends.begin();
        svg::Series s{g.backend, {}, svg::palette_color(bi % svg::kMaxSeries), ""};
        for (const RunData* r : g.runs) {
          const RunEconomics e = economics_of(*r);
          const auto y = e.*(v.field);
          if (!e.tokens_per_s_per_user || !y) continue;
          s.points.push_back({*e.tokens_per_s_per_user, *y,
                              fmt::format("{} c{:g}", g.backend, load_of(r->view).value)});
          all.push_back(s.points.back());
          summaries.push_back(&r->summary);
        }
        std::sort(s.points.begin(), s.points.end(),
                  [](const svg::Point& a, const svg::Point& b) { return a.x < b.x; });
        c.series.push_back(std::move(s));
      }
      if (all.empty()) continue;
      if (!distinct_scales(summaries).empty())
        c.note = "simulated at a time scale: model-time rates (wall × scale)";
      if (count_predicted(summaries) > 0)
        c.note += std::string(c.note.empty() ? "" : "; ") + "predicted in virtual time";
      c.overlay = frontier(all, v.lower_is_better);
      out.emplace_back(c.id, svg::render_line_chart(c));
    }
  return out;
}

std::string economics_text(const Study& st) {
  bool priced = false;
  for (const Group& g : st.groups)
    for (const Level& l : g.levels)
      priced |= economics_of(*l.run).usd_per_million_tokens.has_value();
  std::string out;
  if (priced)
    for (const Cheapest& c : cheapest_meeting_slo(st)) out += c.text + "\n";
  return out;
}

}  // namespace sb::report
