#include "report/recommendation.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/study_format.h"

namespace sb::report {
namespace {

std::string level_words(const Group& g, double load) {
  return load_text(g.load_kind, load);
}

// The e2e P99 of a group at `load` (the winner's evidence), with its interval.
Estimate p99_at(const Group& g, double load) {
  const Level* l = g.at(load);
  return l ? latency_percentile(*l->run, "e2e_ms", 99) : Estimate{};
}

bool intervals_overlap(const Estimate& a, const Estimate& b) {
  if (!a.ci || !b.ci) return false;
  const double a_hi = a.ci->hi_open ? INFINITY : a.ci->hi;
  const double b_hi = b.ci->hi_open ? INFINITY : b.ci->hi;
  const double a_lo = a.ci->lo_open ? -INFINITY : a.ci->lo;
  const double b_lo = b.ci->lo_open ? -INFINITY : b.ci->lo;
  return a_lo <= b_hi && b_lo <= a_hi;
}

}  // namespace

std::string why_it_stops(const Group& g, const Study& st) {
  std::vector<std::string> why;
  if (g.first_unstable) {
    const Level& l = g.levels[*g.first_unstable];
    const std::string at = level_words(g, l.load);
    if (l.error_rate > st.options.max_error_rate) {
      std::string e = fmt::format("errors at {}: {:.0f}% of {} requests failed", at,
                                  l.error_rate * 100, l.measured);
      if (!l.top_error.empty())
        e += fmt::format(" ({} {}{})", l.top_error, l.top_error_count,
                         l.top_error == "overloaded" ? ": the server rejected work (queue or "
                                                       "KV cache full)"
                                                     : "");
      why.push_back(e);
    }
    if (!l.slo_met) {
      std::string misses;
      for (const auto& m : l.slo_misses) misses += (misses.empty() ? "" : ", ") + m;
      why.push_back(fmt::format("past the SLO at {}: {}", at, misses));
    }
  }
  if (g.knee) {
    std::string k = fmt::format("throughput flat past {}", level_words(g, *g.knee));
    // The peak in model time when the run was time-scaled (rates × S), as the SLO misses are.
    if (g.peak && g.levels[*g.peak].qps) {
      const Level& p = g.levels[*g.peak];
      k += p.time_scale != 1 ? fmt::format(" (peak ≈{:.4g} req/s in model time, {:.4g} wall)",
                                           *p.qps * p.time_scale, *p.qps)
                             : fmt::format(" (peak {:.4g} req/s)", *p.qps);
    }
    why.push_back(k);
  }
  // Judged levels whose throughput is one wave, not a rate (study.h: sustained).
  std::vector<std::string> waves;
  for (const Level& l : g.levels)
    if (l.judged && !l.sustained) waves.push_back(fmt::format("{:g}", l.load));
  if (!waves.empty()) {
    std::string list;
    for (const auto& w : waves) list += (list.empty() ? "" : ", ") + w;
    why.push_back(fmt::format(
        "the throughput at concurrency {} is one wave (fewer than {} requests per client), not "
        "a sustained rate: not ranked",
        list, kMinRequestsPerClient));
  }
  // Levels above the last judged one that were too small to judge.
  const double top = g.max_stable.value_or(-1);
  int64_t thin = 0;
  for (const Level& l : g.levels)
    if (!l.judged && l.load > top && !g.first_unstable) ++thin;
  if (thin > 0)
    why.push_back(fmt::format("{} higher level{} with fewer than {} requests (not judged)", thin,
                              thin == 1 ? "" : "s", st.options.min_requests));
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

std::vector<Recommendation> recommend(const Study& st) {
  std::vector<Recommendation> out;
  for (const std::string& sc : st.scenarios) {
    std::vector<const Group*> gs;
    for (const Group& g : st.groups)
      if (g.scenario == sc) gs.push_back(&g);
    Recommendation rec;
    rec.scenario = sc;
    // Rank: the highest max stable load, then the lowest P99 e2e there.
    std::vector<const Group*> ok;
    for (const Group* g : gs)
      if (g->max_stable) ok.push_back(g);
    std::stable_sort(ok.begin(), ok.end(), [](const Group* a, const Group* b) {
      if (*a->max_stable != *b->max_stable) return *a->max_stable > *b->max_stable;
      const auto pa = p99_at(*a, *a->max_stable).value.value_or(INFINITY);
      const auto pb = p99_at(*b, *b->max_stable).value.value_or(INFINITY);
      return pa < pb;
    });
    std::string text;
    if (ok.empty()) {
      text = fmt::format(
          "{}: no backend meets the SLOs ({}) at any load measured with at least {} "
          "requests.",
          sc, slo_words(st), st.options.min_requests);
      for (const Group* g : gs) {
        const std::string why = why_it_stops(*g, st);
        text += fmt::format(" {}: {}.", g->backend,
                            why.empty() ? "no level with enough requests to judge" : why);
      }
      rec.text = text;
      out.push_back(rec);
      continue;
    }
    const Group& w = *ok.front();
    rec.winner = w.backend;
    rec.load = w.max_stable;
    const double scale = w.at(*w.max_stable)->time_scale;
    const Estimate wp = p99_at(w, *w.max_stable);
    text = fmt::format("{}: {} — it meets the SLOs up to {}", sc, w.backend,
                       level_words(w, *w.max_stable));
    if (wp.value) text += fmt::format(" (P99 e2e there {})", latency_cell(wp, 1, scale));
    if (ok.size() == 1 && gs.size() == 1) {
      text += ", the only backend measured.";
    } else if (ok.size() == 1) {
      text += "; no other backend meets them at any judged load.";
    } else {
      const Group& r = *ok[1];
      if (*r.max_stable < *w.max_stable) {
        text +=
            fmt::format("; that is {:.3g}× the load of the runner-up, {} ({}).",
                        *w.max_stable / *r.max_stable, r.backend, level_words(r, *r.max_stable));
      } else {
        const Estimate rp = p99_at(r, *r.max_stable);
        text += fmt::format("; {} holds the same load", r.backend);
        if (wp.value && rp.value) {
          text += fmt::format(" with P99 e2e {}, {:.0f}% higher", duration_text(*rp.value),
                              (*rp.value / *wp.value - 1) * 100);
          if (intervals_overlap(wp, rp))
            text +=
                " — within both P99s' 95% intervals, so a tie on this data (more requests "
                "per level would separate them)";
        }
        text += ".";
      }
    }
    for (const Group* g : gs) {
      if (g == &w) continue;
      const std::string why = why_it_stops(*g, st);
      std::string stable = g->max_stable
                               ? fmt::format("stable up to {}", level_words(*g, *g->max_stable))
                               : "stable at no judged load";
      text += fmt::format(" {} loses: {}{}.", g->backend, stable, why.empty() ? "" : "; " + why);
    }
    const std::string w_why = why_it_stops(w, st);
    if (!w_why.empty()) text += fmt::format(" {} itself: {}.", w.backend, w_why);
    rec.text = text;
    out.push_back(rec);
  }
  return out;
}

}  // namespace sb::report
