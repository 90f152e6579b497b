#include "report/compare_stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <random>

#include <fmt/format.h>

#include "common/error.h"
#include "report/svg_chart.h"

namespace sb::report {

using nlohmann::json;

namespace {

// percentile_inplace for any element type (ITL's gaps stay floats).
template <typename T>
double percentile_of_values(std::vector<T>& v, double p) {
  const double rank = p / 100 * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(rank));
  const double f = rank - static_cast<double>(i);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  const double lo = v[i];
  if (f <= 0 || i + 1 >= v.size()) return lo;
  const double hi = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(i) + 1, v.end());
  return lo + f * (hi - lo);
}

// The per-request material one run contributes to the bootstrap: its samples (latencies,
// gaps per request) and each completion's gap since the previous one.
struct Samples {
  const RequestSamples* rs = nullptr;
  std::vector<double> gap_s, tokens;  // per ok completion, in t_end order
};

Samples samples_of(const RunData& run) {
  Samples s;
  s.rs = &run.samples;
  s.gap_s = run.samples.completion_gaps_s();
  s.tokens.reserve(run.samples.completions.size());
  for (const RequestSamples::Completion& c : run.samples.completions)
    s.tokens.push_back(static_cast<double>(c.output_tokens));
  return s;
}

using Rng = std::mt19937_64;
// A statistic over one run's samples; `pick` == nullptr means the full sample, otherwise
// the indices of a resample.
using Stat = std::function<std::optional<double>(const Samples&, const std::vector<size_t>*)>;
using Size = std::function<size_t(const Samples&)>;

Stat percentile_of(std::vector<double> RequestSamples::*field, double p) {
  return [field, p](const Samples& s, const std::vector<size_t>* pick) -> std::optional<double> {
    const auto& v = s.rs->*field;
    if (v.empty()) return std::nullopt;
    std::vector<double> x;
    if (pick) {
      x.reserve(pick->size());
      for (size_t i : *pick) x.push_back(v[i]);
    } else {
      x = v;
    }
    return percentile_inplace(x, p);
  };
}

Stat itl_percentile(double p) {
  return [p](const Samples& s, const std::vector<size_t>* pick) -> std::optional<double> {
    const RequestSamples& rs = *s.rs;
    std::vector<float> x;  // the gaps as recorded, 4 bytes each
    if (pick) {
      for (size_t i : *pick)
        x.insert(x.end(), rs.itl_ms.begin() + static_cast<std::ptrdiff_t>(rs.itl_begin[i]),
                 rs.itl_ms.begin() + static_cast<std::ptrdiff_t>(rs.itl_begin[i + 1]));
    } else {
      x.assign(rs.itl_ms.begin(), rs.itl_ms.end());
    }
    if (x.empty()) return std::nullopt;
    return percentile_of_values(x, p);
  };
}

Stat rate_of(bool tokens) {
  return [tokens](const Samples& s, const std::vector<size_t>* pick) -> std::optional<double> {
    double num = 0, den = 0;
    auto add = [&](size_t i) {
      num += tokens ? s.tokens[i] : 1.0;
      den += s.gap_s[i];
    };
    if (pick)
      for (size_t i : *pick) add(i);
    else
      for (size_t i = 0; i < s.gap_s.size(); ++i) add(i);
    if (den <= 0 || s.gap_s.empty()) return std::nullopt;
    return num / den;
  };
}

// The bootstrap's normal limit of a statistic (compare_stats.h, "Large runs"): prepared once
// per run, then one draw per round.
using Draw = std::function<std::optional<double>(Rng&)>;
using Limit = std::function<Draw(const Samples&)>;

// The values of ranks first .. first + sorted.size() - 1 of a sample, ascending: all that the
// draws of a percentile reach (8 standard deviations of the rank each side).
template <typename T>
struct RankWindow {
  size_t first = 0;
  std::vector<T> sorted;
  // The value at fractional rank r (clamped to the window), interpolated.
  double at(double r) const {
    const double lo_r = static_cast<double>(first);
    r = std::clamp(r, lo_r, lo_r + static_cast<double>(sorted.size() - 1));
    const size_t i = static_cast<size_t>(std::floor(r - lo_r));
    const size_t j = std::min(i + 1, sorted.size() - 1);
    const double lo = sorted[i], hi = sorted[j];
    return lo + (r - lo_r - static_cast<double>(i)) * (hi - lo);
  }
};

// Reorders `v` (non-empty) so as to cut the window around rank r: two selections and a sort of
// the window only, O(n) rather than sorting n values.
template <typename T>
RankWindow<T> rank_window(std::vector<T>& v, double r, double rank_sd) {
  const double last = static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::clamp(std::floor(r - 8 * rank_sd) - 1, 0.0, last));
  const auto hi = static_cast<size_t>(std::clamp(std::ceil(r + 8 * rank_sd) + 2, 0.0, last));
  const auto b = v.begin();
  std::nth_element(b, b + static_cast<std::ptrdiff_t>(lo), v.end());
  std::nth_element(b + static_cast<std::ptrdiff_t>(lo), b + static_cast<std::ptrdiff_t>(hi),
                   v.end());
  std::sort(b + static_cast<std::ptrdiff_t>(lo), b + static_cast<std::ptrdiff_t>(hi) + 1);
  return {lo, std::vector<T>(b + static_cast<std::ptrdiff_t>(lo),
                             b + static_cast<std::ptrdiff_t>(hi) + 1)};
}

// A resampled percentile: the rank r = p (n - 1) of the sample moved by Z x rank_sd.
template <typename T>
Draw rank_draw(std::vector<T>& scratch, double p, double rank_sd) {
  if (scratch.empty()) return [](Rng&) { return std::optional<double>(); };
  const double r = p / 100 * static_cast<double>(scratch.size() - 1);
  return [w = rank_window(scratch, r, rank_sd), r, rank_sd](Rng& rng) -> std::optional<double> {
    return w.at(r + rank_sd * std::normal_distribution<double>()(rng));
  };
}

Limit percentile_limit(std::vector<double> RequestSamples::*field, double p) {
  return [field, p](const Samples& s) {
    std::vector<double> v = s.rs->*field;
    const double n = static_cast<double>(v.size()), q = p / 100;
    return rank_draw(v, p, std::sqrt(n * q * (1 - q)));
  };
}

// ITL: the pooled gaps' percentile, requests resampled whole. d_i = (gaps of request i at or
// below the pooled percentile) - q x (gaps of request i); the resampled rank moves by the sum
// of n draws of d: sd = sqrt(n x var(d)).
Limit itl_limit(double p) {
  return [p](const Samples& s) {
    const RequestSamples& rs = *s.rs;
    std::vector<float> v = rs.itl_ms;  // 4 bytes a gap: runs of hundreds of millions
    if (v.empty()) return rank_draw(v, p, 0);
    const double q = p / 100;
    const double at = percentile_of_values(v, p);
    const size_t n = rs.itl_requests();
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; ++i) {
      double below = 0;
      for (uint64_t k = rs.itl_begin[i]; k < rs.itl_begin[i + 1]; ++k) below += rs.itl_ms[k] <= at;
      const double d = below - q * static_cast<double>(rs.itl_begin[i + 1] - rs.itl_begin[i]);
      const double delta = d - mean;
      mean += delta / static_cast<double>(i + 1);
      m2 += delta * (d - mean);
    }
    return rank_draw(v, p, std::sqrt(m2));  // n x var(d) = m2
  };
}

// A resampled rate: (sum of tokens or of 1, sum of gaps) over n completions, jointly normal
// with mean n x (their means) and covariance n x (their covariance).
Limit rate_limit(bool tokens) {
  return [tokens](const Samples& s) -> Draw {
    const size_t n = s.gap_s.size();
    if (n == 0) return [](Rng&) { return std::optional<double>(); };
    double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;  // x: tokens (or 1), y: gap
    for (size_t i = 0; i < n; ++i) {
      const double x = tokens ? s.tokens[i] : 1.0, y = s.gap_s[i];
      const double k = static_cast<double>(i + 1), dx = x - mx, dy = y - my;
      mx += dx / k;
      my += dy / k;
      sxx += dx * (x - mx);
      syy += dy * (y - my);
      sxy += dx * (y - my);
    }
    const double nd = static_cast<double>(n);
    // Cholesky of n x the covariance (the sums of squares above are n x the variances).
    const double a = std::sqrt(syy);
    const double b = a > 0 ? sxy / a : 0;
    const double c = std::sqrt(std::max(0.0, sxx - b * b));
    return [=](Rng& rng) -> std::optional<double> {
      std::normal_distribution<double> z;
      const double z1 = z(rng), z2 = z(rng);
      const double gaps = nd * my + a * z1, count = nd * mx + b * z1 + c * z2;
      if (!(gaps > 0)) return std::nullopt;
      return count / gaps;
    };
  };
}

struct MetricDef {
  std::string name, unit;
  bool higher_is_better;
  Stat stat;
  Size size;
  std::function<std::optional<double>(const RunData&, const Samples&)> point;
  Limit limit;
};

std::vector<MetricDef> metric_defs() {
  std::vector<MetricDef> d;
  auto lat = [&](const char* name, std::vector<double> RequestSamples::*field, double p) {
    Stat st = percentile_of(field, p);
    d.push_back({name, "ms", false, st, [field](const Samples& s) { return (s.rs->*field).size(); },
                 [st](const RunData&, const Samples& s) { return st(s, nullptr); },
                 percentile_limit(field, p)});
  };
  auto itl = [&](const char* name, double p) {
    Stat st = itl_percentile(p);
    d.push_back({name, "ms", false, st, [](const Samples& s) { return s.rs->itl_requests(); },
                 [st](const RunData&, const Samples& s) { return st(s, nullptr); }, itl_limit(p)});
  };
  lat("ttft_p50", &RequestSamples::ttft_ms, 50);
  lat("ttft_p99", &RequestSamples::ttft_ms, 99);
  lat("tpot_p50", &RequestSamples::tpot_ms, 50);
  lat("tpot_p99", &RequestSamples::tpot_ms, 99);
  itl("itl_p50", 50);
  itl("itl_p99", 99);
  lat("e2e_p50", &RequestSamples::e2e_ms, 50);
  lat("e2e_p99", &RequestSamples::e2e_ms, 99);
  for (const bool tokens : {false, true}) {
    Stat st = rate_of(tokens);
    d.push_back({tokens ? "output_tps" : "throughput_rps", tokens ? "tok/s" : "req/s", true, st,
                 [](const Samples& s) { return s.gap_s.size(); },
                 [st, tokens](const RunData& r, const Samples& s) {
                   auto v = tokens ? r.view.throughput.output_tokens_per_s
                                   : r.view.throughput.requests_per_s;
                   return v ? v : st(s, nullptr);
                 },
                 rate_limit(tokens)});
  }
  return d;
}

std::string signed_pct(std::optional<double> v) {
  return v ? fmt::format("{:+.1f}%", *v) : "n/a";
}

std::string verdict(const MetricChange& c) {
  if (!c.change_pct) return "n/a";
  if (c.regression) return "REGRESSION";
  if (c.significant) return "improvement";
  return "no significant change";
}

}  // namespace

double percentile_inplace(std::vector<double>& v, double p) {
  return percentile_of_values(v, p);
}

const std::vector<std::string>& compare_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& d : metric_defs()) n.push_back(d.name);
    return n;
  }();
  return names;
}

std::vector<MetricChange> compare_runs(const RunData& base, const RunData& cand,
                                       const CompareOptions& o) {
  if (o.resamples < 10) throw usage_error("--resamples: use at least 10 (default 1000)");
  if (!(o.confidence > 0 && o.confidence < 1))
    throw usage_error("--confidence: give a fraction between 0 and 1, e.g. 0.95");
  const Samples sb = samples_of(base), sc = samples_of(cand);
  Rng rng(o.seed);
  std::vector<MetricChange> out;
  for (const MetricDef& d : metric_defs()) {
    MetricChange c;
    c.name = d.name;
    c.unit = d.unit;
    c.higher_is_better = d.higher_is_better;
    c.baseline = d.point(base, sb);
    c.candidate = d.point(cand, sc);
    const size_t nb = d.size(sb), nc = d.size(sc);
    c.n_baseline = static_cast<int64_t>(nb);
    c.n_candidate = static_cast<int64_t>(nc);
    if (c.baseline && c.candidate && *c.baseline != 0)
      c.change_pct = (*c.candidate - *c.baseline) / *c.baseline * 100;
    if (c.change_pct && nb > 0 && nc > 0) {
      // Values one round touches: ITL pools every gap of the drawn requests.
      double per_round = static_cast<double>(nb + nc);
      if (c.name.starts_with("itl"))
        per_round = static_cast<double>(sb.rs->itl_ms.size() + sc.rs->itl_ms.size());
      const auto exact = static_cast<double>(o.exact_up_to);
      const bool limit = static_cast<double>(nb + nc) > exact || per_round > 20 * exact;
      const int rounds = limit ? o.resamples
                               : static_cast<int>(std::min<double>(
                                     o.resamples, std::max(200.0, 2e8 / std::max(1.0, per_round))));
      c.resamples = rounds;
      std::vector<double> changes;
      changes.reserve(static_cast<size_t>(rounds));
      auto add = [&](std::optional<double> vb, std::optional<double> vc) {
        if (vb && vc && *vb != 0) changes.push_back((*vc - *vb) / *vb * 100);
      };
      if (limit) {
        const Draw db = d.limit(sb), dc = d.limit(sc);
        for (int b = 0; b < rounds; ++b) {
          const auto vb = db(rng);
          add(vb, dc(rng));
        }
      } else {
        std::vector<size_t> pb(nb), pc(nc);
        std::uniform_int_distribution<size_t> db(0, nb - 1), dc(0, nc - 1);
        for (int b = 0; b < rounds; ++b) {
          for (auto& i : pb) i = db(rng);
          for (auto& i : pc) i = dc(rng);
          add(d.stat(sb, &pb), d.stat(sc, &pc));
        }
      }
      if (changes.size() >= static_cast<size_t>(rounds) / 2) {
        auto lo = changes, hi = changes;
        c.ci_low_pct = percentile_inplace(lo, (1 - o.confidence) / 2 * 100);
        c.ci_high_pct = percentile_inplace(hi, (1 + o.confidence) / 2 * 100);
        const bool excludes_zero = *c.ci_low_pct > 0 || *c.ci_high_pct < 0;
        c.significant = excludes_zero && std::abs(*c.change_pct) >= o.min_effect_pct;
        const bool worse = c.higher_is_better ? *c.change_pct < 0 : *c.change_pct > 0;
        c.regression = c.significant && worse;
      }
    }
    out.push_back(c);
  }
  return out;
}

RegressionGate parse_regression_gate(std::string_view text) {
  const auto colon = text.rfind(':');
  const auto bad = [&](std::string_view why) {
    std::string names;
    for (const auto& n : compare_metric_names()) names += (names.empty() ? "" : "|") + n;
    return usage_error(fmt::format(
        "--fail-on-regression '{}': {}; use METRIC:PCT with METRIC one of {} or a family "
        "(ttft, tpot, itl, e2e, throughput), e.g. e2e_p99:10",
        text, why, names));
  };
  if (colon == std::string_view::npos) throw bad("no ':PCT'");
  RegressionGate g;
  g.metric = std::string(text.substr(0, colon));
  const std::string num(text.substr(colon + 1));
  try {
    size_t used = 0;
    g.pct = std::stod(num, &used);
    if (used != num.size() || !std::isfinite(g.pct) || g.pct < 0) throw bad("bad percentage");
  } catch (const std::logic_error&) {
    throw bad("the percentage is not a number");
  }
  const auto& names = compare_metric_names();
  const bool family = g.metric == "ttft" || g.metric == "tpot" || g.metric == "itl" ||
                      g.metric == "e2e" || g.metric == "throughput";
  if (!family && std::find(names.begin(), names.end(), g.metric) == names.end())
    throw bad("unknown metric");
  return g;
}

std::vector<std::string> failed_gates(const std::vector<MetricChange>& changes,
                                      const std::vector<RegressionGate>& gates) {
  std::vector<std::string> out;
  for (const RegressionGate& g : gates)
    for (const MetricChange& c : changes) {
      const bool match = c.name == g.metric || c.name.starts_with(g.metric + "_") ||
                         (g.metric == "throughput" && c.unit != "ms");
      if (!match || !c.regression || !c.change_pct) continue;
      if (std::abs(*c.change_pct) > g.pct)
        out.push_back(fmt::format("{}: {} (CI {} .. {}) worse than the {}% allowed", c.name,
                                  signed_pct(c.change_pct), signed_pct(c.ci_low_pct),
                                  signed_pct(c.ci_high_pct), g.pct));
    }
  return out;
}

std::string compare_to_text(const std::vector<MetricChange>& changes, const RunData& base,
                            const RunData& cand, const CompareOptions& o) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "baseline:  {} ({} measured requests)\ncandidate: {} ({} measured requests)\n",
                 base.dir, base.samples.measured, cand.dir, cand.samples.measured);
  fmt::format_to(it,
                 "bootstrap over requests: {} resamples, {:.0f}% confidence, seed {}, "
                 "significant when the CI excludes 0 and |change| >= {}%\n\n",
                 o.resamples, o.confidence * 100, o.seed, o.min_effect_pct);
  const std::string ci_head = fmt::format("{:.0f}% CI", o.confidence * 100);
  fmt::format_to(it, "{:<16}{:>14}{:>14}{:>10}  {:<20}{}\n", "metric", "baseline", "candidate",
                 "change", ci_head, "verdict");
  for (const MetricChange& c : changes) {
    auto v = [&](std::optional<double> x) {
      return x ? fmt::format("{} {}", svg::format_value(*x), c.unit) : std::string("n/a");
    };
    const std::string ci =
        c.ci_low_pct ? fmt::format("[{}, {}]", signed_pct(c.ci_low_pct), signed_pct(c.ci_high_pct))
                     : "n/a";
    fmt::format_to(it, "{:<16}{:>14}{:>14}{:>10}  {:<20}{}\n", c.name, v(c.baseline),
                   v(c.candidate), signed_pct(c.change_pct), ci, verdict(c));
  }
  return out;
}

json compare_to_json(const std::vector<MetricChange>& changes, const RunData& base,
                     const RunData& cand, const CompareOptions& o) {
  auto opt = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  json metrics = json::array();
  for (const MetricChange& c : changes)
    metrics.push_back({{"metric", c.name},
                       {"unit", c.unit},
                       {"higher_is_better", c.higher_is_better},
                       {"baseline", opt(c.baseline)},
                       {"candidate", opt(c.candidate)},
                       {"change_pct", opt(c.change_pct)},
                       {"ci_low_pct", opt(c.ci_low_pct)},
                       {"ci_high_pct", opt(c.ci_high_pct)},
                       {"n_baseline", c.n_baseline},
                       {"n_candidate", c.n_candidate},
                       {"resamples", c.resamples},
                       {"significant", c.significant},
                       {"regression", c.regression}});
  return {{"schema", "servebench.compare/1"},
          {"baseline", base.dir},
          {"candidate", cand.dir},
          {"bootstrap",
           {{"resamples", o.resamples},
            {"confidence", o.confidence},
            {"seed", o.seed},
            {"min_effect_pct", o.min_effect_pct}}},
          {"metrics", metrics}};
}

std::string compare_to_html(const std::vector<MetricChange>& changes, const RunData& base,
                            const RunData& cand, const CompareOptions& o) {
  using svg::escape;
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(
      it,
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>servebench "
      "compare</title><style>body{{font-family:system-ui,sans-serif;margin:24px}}table{{border-"
      "collapse:collapse}}th,td{{border:1px solid #ccc;padding:3px 8px;text-align:right}}"
      "td:first-child{{text-align:left}}.REGRESSION{{color:#cf222e;font-weight:bold}}"
      ".improvement{{color:#1a7f37}}</style></head><body><h1>servebench compare</h1>"
      "<p>baseline: {} &rarr; candidate: {}</p><p>Bootstrap over requests: {} resamples, "
      "{:.0f}% confidence, seed {}; significant when the interval excludes 0 and |change| "
      "&ge; {}%.</p><table data-table=\"compare\"><thead><tr><th>metric</th><th>baseline</th>"
      "<th>candidate</th><th>change</th><th>CI low</th><th>CI high</th><th>verdict</th></tr>"
      "</thead><tbody>",
      escape(base.dir), escape(cand.dir), o.resamples, o.confidence * 100, o.seed,
      o.min_effect_pct);
  for (const MetricChange& c : changes) {
    auto v = [&](std::optional<double> x) {
      return x ? fmt::format("{} {}", svg::format_value(*x), c.unit) : std::string("n/a");
    };
    const std::string vd = verdict(c);
    fmt::format_to(it,
                   "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                   "<td class=\"{}\">{}</td></tr>",
                   escape(c.name), escape(v(c.baseline)), escape(v(c.candidate)),
                   signed_pct(c.change_pct), signed_pct(c.ci_low_pct), signed_pct(c.ci_high_pct),
                   vd == "REGRESSION" || vd == "improvement" ? vd : "", escape(vd));
  }
  out += "</tbody></table></body></html>\n";
  return out;
}

}  // namespace sb::report
