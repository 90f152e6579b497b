#include "calibrate/fit_output.h"

#include <set>

#include <fmt/format.h>

#include "calibrate/residuals.h"

namespace sb::calibrate {
namespace {

using nlohmann::json;

// The signed errors of metric `m` over the levels that have it.
std::vector<double> errors_of_metric(const FitResult& fit, size_t m) {
  std::vector<double> out;
  for (const LevelResult& l : fit.levels)
    if (const auto e = relative_error(l.measured[m], l.predicted[m])) out.push_back(*e);
  return out;
}

std::vector<double> all_errors(const FitResult& fit) {
  std::vector<double> out;
  for (size_t m = 0; m < kMetricNames.size(); ++m)
    for (double e : errors_of_metric(fit, m)) out.push_back(e);
  return out;
}

json stats_json(const ErrorStats& s) {
  return {{"count", s.count},     {"mean_signed", s.mean_signed}, {"mean_abs", s.mean_abs},
          {"p50_abs", s.p50_abs}, {"p90_abs", s.p90_abs},         {"p99_abs", s.p99_abs}};
}

json optional_json(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string value_text(const FitParam& p, double v) {
  return p.integer ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{:.6g}", v);
}

std::string pct(double e) {
  return fmt::format("{:+.1f}%", e * 100);
}

}  // namespace

std::string preset_yaml(const FitResult& fit, const BaseOrigin& base) {
  std::string y = "# servebench calibrate: a simulator preset fitted to measured runs\n";
  y += fmt::format("# base: {}; fitted on {} runs:\n", base.label, fit.levels.size());
  for (const LevelResult& l : fit.levels) y += fmt::format("#   {} ({})\n", l.dir, l.level);
  const ErrorStats all = error_stats(all_errors(fit));
  y += fmt::format(
      "# residuals over {} figures (TTFT/TPOT/e2e p50/p90/p99, output tokens/s per level): "
      "|error| mean {:.1f}%, p50 {:.1f}%, p90 {:.1f}%, p99 {:.1f}%; mean signed {:+.1f}%\n",
      all.count, all.mean_abs * 100, all.p50_abs * 100, all.p90_abs * 100, all.p99_abs * 100,
      all.mean_signed * 100);
  y += fmt::format(
      "# mean squared log error of the fitted figures (p50s, p90s, output tokens/s): {:.6g} (base: "
      "{:.6g}); per metric and level: the sidecar .residuals.json\n",
      fit.objective, fit.objective_start);
  y += fmt::format("preset: {}\n", base.preset);
  std::set<std::string> fitted;
  for (const FitParam& p : fit.params) fitted.insert(p.name);
  for (const auto& [k, v] : base.values) {
    std::string canon = k;
    for (auto& ch : canon) ch = ch == '_' ? '-' : ch;
    if (!fitted.count(canon)) y += fmt::format("{}: {}\n", k, v);
  }
  for (size_t i = 0; i < fit.params.size(); ++i)
    y += fmt::format("{}: {}  # base {}\n", fit.params[i].name,
                     value_text(fit.params[i], fit.values[i]),
                     value_text(fit.params[i], fit.start[i]));
  return y;
}

json residuals_json(const FitResult& fit, const BaseOrigin& base) {
  json params = json::array();
  for (size_t i = 0; i < fit.params.size(); ++i)
    params.push_back({{"name", fit.params[i].name},
                      {"start", fit.start[i]},
                      {"fitted", fit.values[i]},
                      {"lo", fit.params[i].lo},
                      {"hi", fit.params[i].hi}});
  json levels = json::array();
  for (const LevelResult& l : fit.levels) {
    json m = json::object();
    for (size_t k = 0; k < kMetricNames.size(); ++k)
      m[std::string(kMetricNames[k])] = {
          {"measured", optional_json(l.measured[k])},
          {"predicted", optional_json(l.predicted[k])},
          {"error", optional_json(relative_error(l.measured[k], l.predicted[k]))}};
    levels.push_back({{"dir", l.dir}, {"level", l.level}, {"metrics", m}});
  }
  json per_metric = json::object();
  for (size_t k = 0; k < kMetricNames.size(); ++k)
    per_metric[std::string(kMetricNames[k])] = stats_json(error_stats(errors_of_metric(fit, k)));
  return {{"base", base.label},
          {"preset", base.preset},
          {"objective", {{"start", fit.objective_start}, {"fitted", fit.objective}}},
          {"evaluations", fit.evaluations},
          {"parameters", params},
          {"levels", levels},
          {"per_metric", per_metric},
          {"all", stats_json(error_stats(all_errors(fit)))}};
}

std::string error_table(const FitResult& fit) {
  std::string t = "parameter               base        fitted\n";
  for (size_t i = 0; i < fit.params.size(); ++i)
    t += fmt::format("{:<22}  {:<10}  {}\n", fit.params[i].name,
                     value_text(fit.params[i], fit.start[i]),
                     value_text(fit.params[i], fit.values[i]));
  t += fmt::format(
      "mean squared log error of the fitted figures (*): {:.4g} -> {:.4g} ({} evaluations)\n\n",
      fit.objective_start, fit.objective, fit.evaluations);
  t += fmt::format("{:<20}", "metric");
  for (const LevelResult& l : fit.levels) t += fmt::format("  {:>18}", l.level + " meas/pred");
  t += "\n";
  for (size_t k = 0; k < kMetricNames.size(); ++k) {
    t += fmt::format("{:<20}", fmt::format("{}{}", kMetricNames[k], kFitted[k] ? " *" : ""));
    for (const LevelResult& l : fit.levels) {
      const auto e = relative_error(l.measured[k], l.predicted[k]);
      t += e ? fmt::format("  {:>9.4g}/{:<8.4g}", *l.measured[k], *l.predicted[k])
             : fmt::format("  {:>18}", "-");
    }
    t += "\n";
  }
  t += fmt::format("\nsigned error per level, |error| over levels\n{:<20}", "metric");
  for (const LevelResult& l : fit.levels) t += fmt::format("  {:>8}", l.level);
  t += "      mean     p50     p90     p99\n";
  const auto row = [&](std::string_view name, const std::vector<std::optional<double>>& per_level,
                       const ErrorStats& s) {
    t += fmt::format("{:<20}", name);
    for (const auto& e : per_level) t += fmt::format("  {:>8}", e ? pct(*e) : "-");
    t += fmt::format("  {:>7.1f}% {:>6.1f}% {:>6.1f}% {:>6.1f}%\n", s.mean_abs * 100,
                     s.p50_abs * 100, s.p90_abs * 100, s.p99_abs * 100);
  };
  for (size_t k = 0; k < kMetricNames.size(); ++k) {
    std::vector<std::optional<double>> per_level;
    for (const LevelResult& l : fit.levels)
      per_level.push_back(relative_error(l.measured[k], l.predicted[k]));
    row(kMetricNames[k], per_level, error_stats(errors_of_metric(fit, k)));
  }
  std::vector<std::optional<double>> blank(fit.levels.size());
  for (size_t j = 0; j < fit.levels.size(); ++j) {
    std::vector<double> e;
    for (size_t k = 0; k < kMetricNames.size(); ++k)
      if (const auto x = relative_error(fit.levels[j].measured[k], fit.levels[j].predicted[k]))
        e.push_back(*x);
    blank[j] = error_stats(e).mean_abs;
  }
  t += fmt::format("{:<20}", "all (mean |error|)");
  for (const auto& e : blank) t += fmt::format("  {:>8}", fmt::format("{:.1f}%", *e * 100));
  const ErrorStats all = error_stats(all_errors(fit));
  t += fmt::format("  {:>7.1f}% {:>6.1f}% {:>6.1f}% {:>6.1f}%\n", all.mean_abs * 100,
                   all.p50_abs * 100, all.p90_abs * 100, all.p99_abs * 100);
  return t;
}

}  // namespace sb::calibrate
