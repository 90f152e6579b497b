#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "report/economics.h"
#include "report/recommendation.h"
#include "report/report_tables.h"
#include "report/study_tables.h"
#include "report/svg_chart.h"
#include "report/time_scale.h"
#include "report/time_split.h"

namespace sb::report {

using nlohmann::json;
using svg::escape;

namespace {

constexpr const char* kCss =
    R"(body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1300px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
h3{font-size:15px}table{border-collapse:collapse;margin:8px 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}.pass{color:#1a7f37;font-weight:bold}
.fail{color:#cf222e;font-weight:bold}.note{background:#fff8c5;border:1px solid #d4a72c;padding:8px}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eee;background:#fff}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}dt{font-weight:bold}
dd{margin:0 0 6px 16px})";

struct Chart {
  std::string id, svg;
};

struct LatencyMetric {
  const char* key;
  const char* label;
};
constexpr LatencyMetric kLatency[] = {
    {"ttft_ms", "TTFT"}, {"tpot_ms", "TPOT"}, {"itl_ms", "ITL"}, {"e2e_ms", "e2e latency"}};

std::string slug(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return s;
}

std::optional<double> metric(const results::SummaryView& s, const char* key, const char* stat) {
  const results::DistributionView* d = s.metrics.find(key);
  return d ? d->stat(stat) : std::nullopt;
}

svg::Axis load_axis(const std::string& kind) {
  return kind == "rate" ? svg::Axis{"request rate", "req/s", {}, {}}
                        : svg::Axis{"concurrency", "", {}, {}};
}

// Over-time charts need this many time buckets (or telemetry points): fewer is no curve.
constexpr size_t kMinBuckets = 10;

std::vector<std::string> backends_of(const std::vector<RunGroup>& groups) {
  std::vector<std::string> out;
  for (const RunGroup& g : groups)
    if (std::find(out.begin(), out.end(), g.backend) == out.end()) out.push_back(g.backend);
  return out;
}

// A backend's colour: its position among every backend of the report, the same in every panel.
std::string backend_color(const std::vector<std::string>& backends, const std::string& b) {
  const auto it = std::find(backends.begin(), backends.end(), b);
  return svg::palette_color(static_cast<size_t>(it - backends.begin()) % svg::kMaxSeries);
}

// Above this many runs, the over-time section charts only the runs at the study's named load.
constexpr size_t kMaxOverTimeRuns = 12;
// Over-time charts with more points than this draw the line alone: a hoverable marker per point
// costs ~200 bytes, and at that density the points are not told apart anyway.
constexpr size_t kMaxMarkers = 120;

// "simulated at ×S: …" and/or "predicted in virtual time" for a chart of these runs ("" when
// all were measured in real time).
std::string chart_note(const std::vector<const RunData*>& runs) {
  std::vector<const json*> s;
  for (const RunData* r : runs) s.push_back(&r->summary);
  const std::string predicted = count_predicted(s) > 0 ? "predicted in virtual time" : "";
  const auto scales = distinct_scales(s);
  if (scales.empty()) return predicted;
  std::string list;
  for (double v : scales) list += (list.empty() ? "×" : ", ×") + fmt::format("{:g}", v);
  return fmt::format("{}{}simulated at {}: wall-clock values (model time = wall ÷ scale)",
                     predicted, predicted.empty() ? "" : "; ", list);
}

// Charts against load, as small multiples: for each quantity one panel per scenario, one
// colour per backend, p50 solid and p99 dashed; a log-2 axis for concurrency levels; error
// rate on [0, 100] %.
std::vector<Chart> load_charts(const std::vector<RunGroup>& groups) {
  std::vector<Chart> out;
  const std::vector<std::string> backends = backends_of(groups);
  for (const char* kind_name : {"concurrency", "rate"}) {
    const std::string kind = kind_name;
    std::vector<std::string> scenarios;
    size_t runs = 0;
    for (const RunGroup& g : groups)
      if (g.load_kind == kind) {
        runs += g.runs.size();
        if (std::find(scenarios.begin(), scenarios.end(), g.scenario) == scenarios.end())
          scenarios.push_back(g.scenario);
      }
    if (runs < 2) continue;
    const std::string sfx = kind == "rate" ? "-rate" : "";
    for (const std::string& sc : scenarios) {
      std::vector<const RunGroup*> gs;
      std::vector<const RunData*> panel_runs;
      for (const RunGroup& g : groups)
        if (g.load_kind == kind && g.scenario == sc) {
          gs.push_back(&g);
          panel_runs.insert(panel_runs.end(), g.runs.begin(), g.runs.end());
        }
      const std::string note = chart_note(panel_runs);
      auto frame = [&](const std::string& id, const std::string& title, svg::Axis y) {
        svg::LineChart c;
        c.id = id + sfx + "-" + slug(sc);
        c.title = fmt::format("{} — {}", title, sc);
        c.x = load_axis(kind);
        c.x.log2 = kind == "concurrency";
        c.y = y;
        c.note = note;
        return c;
      };
      auto chart = [&](const std::string& id, const std::string& title, svg::Axis y,
                       auto value) {  // value(const results::SummaryView&) -> optional<double>
        svg::LineChart c = frame(id, title, y);
        for (const RunGroup* g : gs) {
          svg::Series s{g->backend, {}, backend_color(backends, g->backend), ""};
          for (const RunData* r : g->runs)
            if (auto v = value(r->view)) s.points.push_back({load_of(r->view).value, *v});
          c.series.push_back(s);
        }
        // Goodput exists only when prof was given --goodput: no chart rather than an empty one.
        const bool empty = std::all_of(c.series.begin(), c.series.end(),
                                       [](const svg::Series& s) { return s.points.empty(); });
        if (!empty || id != "goodput") out.push_back({c.id, svg::render_line_chart(c)});
      };
      chart("throughput-rps", "Throughput (requests/s) vs load", {"throughput", "req/s", {}, {}},
            [](const results::SummaryView& s) { return s.throughput.requests_per_s; });
      chart("throughput-tokens", "Output tokens/s vs load", {"output throughput", "tok/s", {}, {}},
            [](const results::SummaryView& s) { return s.throughput.output_tokens_per_s; });
      for (const LatencyMetric& lm : kLatency) {
        svg::LineChart c = frame(fmt::format("latency-{}", slug(lm.key)),
                                 fmt::format("{} p50 (solid) / p99 (dashed) vs load", lm.label),
                                 {lm.label, "ms", {}, {}});
        for (const RunGroup* g : gs)
          for (const char* stat : {"p50", "p99"}) {
            svg::Series s{fmt::format("{} {}", g->backend, stat),
                          {},
                          backend_color(backends, g->backend),
                          std::string_view(stat) == "p99" ? "6 3" : ""};
            for (const RunData* r : g->runs)
              if (auto v = metric(r->view, lm.key, stat))
                s.points.push_back({load_of(r->view).value, *v});
            c.series.push_back(s);
          }
        out.push_back({c.id, svg::render_line_chart(c)});
      }
      chart("error-rate", "Error rate vs load", {"error rate", "%", 0.0, 100.0},
            [](const results::SummaryView& s) -> std::optional<double> {
              auto e = results::error_rate(s);
              return e ? std::optional<double>(*e * 100) : std::nullopt;
            });
      chart("goodput", "Goodput (requests/s meeting the prof --goodput SLOs) vs load",
            {"goodput", "req/s", {}, {}},
            [](const results::SummaryView& s) { return s.goodput.requests_per_s; });
    }
  }
  return out;
}

// The Pareto charts of economics.h, as the report's charts.
std::vector<Chart> pareto_chart_list(const std::vector<RunGroup>& groups) {
  std::vector<Chart> out;
  for (auto& [id, svg] : pareto_charts(groups)) out.push_back({id, std::move(svg)});
  return out;
}

// A run's samples of one metric, ascending, for its CDF. Of more than kCdfMaxGaps ITL gaps, 1 in
// `stride` is taken (in the log's order: every request's share alike) and the title says so.
constexpr size_t kCdfMaxGaps = size_t{1} << 24;
std::vector<double> sorted_samples(const RunData& r, std::string_view key, size_t& stride) {
  const RequestSamples& s = r.samples;
  std::vector<double> v;
  stride = 1;
  if (key == "itl_ms") {
    stride = (s.itl_ms.size() + kCdfMaxGaps - 1) / kCdfMaxGaps;
    stride = std::max<size_t>(stride, 1);
    v.reserve(s.itl_ms.size() / stride + 1);
    for (size_t i = 0; i < s.itl_ms.size(); i += stride) v.push_back(s.itl_ms[i]);
  } else {
    v = key == "ttft_ms" ? s.ttft_ms : key == "tpot_ms" ? s.tpot_ms : s.e2e_ms;
  }
  std::sort(v.begin(), v.end());
  return v;
}

// CDFs at the study's named load: one panel per metric and scenario, one series per backend
// (its run at that load).
std::vector<Chart> cdf_charts(const Study& st) {
  std::vector<Chart> out;
  if (!st.at_load) return out;
  for (const std::string& sc : st.scenarios)
    for (const LatencyMetric& lm : kLatency) {
      std::vector<std::vector<double>> data;
      std::vector<std::string> names, thinned;
      for (const std::string& b : st.backends) {
        const Group* g = st.group(b, sc);
        const Level* l = g ? g->at(*st.at_load) : nullptr;
        if (!l || !l->run->has_requests) continue;
        size_t stride = 1;
        data.push_back(sorted_samples(*l->run, lm.key, stride));
        names.push_back(b);
        if (stride > 1)
          thinned.push_back(
              fmt::format("{}: 1 in {} of its {} gaps", b, stride, l->run->samples.itl_ms.size()));
      }
      if (data.empty()) continue;
      const std::string id = fmt::format("cdf-{}-{}", slug(lm.key), slug(sc));
      std::string title =
          fmt::format("CDF of {} at concurrency {:g} — {}", lm.label, *st.at_load, sc);
      if (!thinned.empty()) title += fmt::format(" ({})", fmt::join(thinned, "; "));
      out.push_back({id, svg::render_cdf_chart(id, title, {lm.label, "ms", {}, {}}, data, names)});
    }
  return out;
}

// Telemetry series (summary.json `telemetry.series`, src/telemetry) with points, on the
// run's time axis: one chart per unit, one line per series (bytes shown in GiB).
std::vector<Chart> telemetry_charts(const RunData& r, size_t index) {
  std::vector<Chart> out;
  const json series = r.summary.contains("telemetry")
                          ? r.summary["telemetry"].value("series", json::array())
                          : json::array();
  if (!series.is_array()) return out;
  std::map<std::string, svg::LineChart> by_unit;
  for (const json& s : series) {
    if (!s.contains("points") || !s["points"].is_array() || s["points"].size() < kMinBuckets)
      continue;
    std::string unit = s.value("unit", "");
    const double scale = unit == "bytes" ? 1.0 / (1024.0 * 1024 * 1024) : 1.0;
    if (unit == "bytes") unit = "GiB";
    svg::LineChart& c = by_unit[unit];
    if (c.id.empty()) {
      std::string id = slug(unit.empty()   ? "count"
                            : unit == "%"  ? "pct"
                            : unit == "/s" ? "per-s"
                                           : unit);
      for (char& ch : id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      c.id = fmt::format("ts-telemetry-{}-{}", id, index);
      c.title = fmt::format("{}: telemetry ({})", r.name, unit.empty() ? "count" : unit);
      c.x = {"time since run start", "s", {}, {}};
      c.y = {unit.empty() ? "value" : unit, unit, {}, {}};
    }
    svg::Series line{s.value("report_name", s.value("name", "")), {}};
    for (const json& p : s["points"])
      if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
        line.points.push_back({p[0].get<double>(), p[1].get<double>() * scale});
    c.markers = line.points.size() <= kMaxMarkers;
    c.series.push_back(std::move(line));
  }
  for (auto& [unit, c] : by_unit) out.push_back({c.id, svg::render_line_chart(c)});
  return out;
}

std::vector<Chart> timeseries_charts(const RunData& r, size_t index) {
  std::vector<Chart> out;
  const std::vector<results::TimeBucketView>& ts = r.view.timeseries;
  if (ts.size() < kMinBuckets) return telemetry_charts(r, index);
  auto chart = [&](const char* id, std::string title, svg::Axis y,
                   std::vector<std::pair<const char*, const char*>> fields) {
    svg::LineChart c;
    c.id = fmt::format("ts-{}-{}", id, index);
    c.title = fmt::format("{}: {}", r.name, title);
    c.x = {"time since run start", "s", {}, {}};
    c.y = y;
    c.markers = ts.size() <= kMaxMarkers;
    for (const auto& [field, name] : fields) {
      svg::Series s{name, {}};
      for (const results::TimeBucketView& b : ts)
        if (auto t = b.t_s)
          if (auto v = b.field(field)) s.points.push_back({*t, *v});
      c.series.push_back(s);
    }
    out.push_back({c.id, svg::render_line_chart(c)});
  };
  chart("throughput", "throughput over time", {"throughput", "req/s", {}, {}},
        {{"requests_per_s", "requests/s"}});
  chart("tokens", "output tokens/s over time", {"output throughput", "tok/s", {}, {}},
        {{"output_tokens_per_s", "output tok/s"}});
  chart("inflight", "in-flight requests and errors", {"requests", "", {}, {}},
        {{"in_flight", "in flight"}, {"errors", "errors"}});
  chart("ttft", "TTFT over time", {"TTFT", "ms", {}, {}},
        {{"ttft_mean_ms", "TTFT mean"}, {"ttft_p99_ms", "TTFT p99"}});
  for (Chart& c : telemetry_charts(r, index)) out.push_back(std::move(c));
  return out;
}

void html_table(std::string& out, const Table& t) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "<table data-table=\"{}\"><thead><tr>", escape(t.id));
  for (const auto& h : t.header) fmt::format_to(it, "<th>{}</th>", escape(h));
  out += "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& c : row) {
      const char* cls = c.starts_with("PASS")   ? " class=\"pass\""
                        : c.starts_with("FAIL") ? " class=\"fail\""
                                                : "";
      fmt::format_to(it, "<td{}>{}</td>", cls, escape(c));
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
}

// Resource use of one run from its telemetry: mean / p50 / max of every named series, the
// sources' failure counts and warnings as a last column.
Table telemetry_table(const RunData& r) {
  Table t{"telemetry-" + slug(r.name), r.name, {"series", "unit", "mean", "p50", "max"}, {}};
  const json& tel = r.summary["telemetry"];
  for (const json& s : tel.value("series", json::array())) {
    if (!s.contains("report_name")) continue;
    const std::string unit = s.value("unit", "");
    const double scale = unit == "bytes" ? 1.0 / (1024.0 * 1024 * 1024) : 1.0;
    auto v = [&](const char* k) -> std::string {
      auto x = number_at(s, {k});
      return x ? fmt::format("{:.4g}", *x * scale) : "–";
    };
    t.rows.push_back({s.value("report_name", ""), unit == "bytes" ? "GiB" : unit, v("mean"),
                      v("p50"), v("max")});
  }
  for (const json& w : tel.value("warnings", json::array()))
    if (w.is_string()) t.rows.push_back({"warning: " + w.get<std::string>(), "", "", "", ""});
  return t;
}

// Speed against quality: P99 e2e latency over corpus BLEU, one point per run, one colour per
// backend (markers only). Empty when no run has quality scores.
std::vector<Chart> quality_charts(const std::vector<RunGroup>& groups) {
  svg::LineChart c;
  c.id = "quality-p99-bleu";
  c.title = "P99 e2e latency vs BLEU, per backend";
  c.x = {"BLEU", "", {}, {}};
  c.y = {"P99 e2e latency", "ms", {}, {}};
  c.lines = false;
  std::map<std::string, size_t> series_of;
  for (const RunGroup& g : groups)
    for (const RunData* r : g.runs) {
      std::optional<double> bleu;
      if (r->view.quality) bleu = r->view.quality->bleu;
      const auto p99 = metric(r->view, "e2e_ms", "p99");
      if (!bleu || !p99) continue;
      auto [pos, added] = series_of.emplace(g.backend, c.series.size());
      if (added) c.series.push_back({g.backend, {}});
      c.series[pos->second].points.push_back({*bleu, *p99});
    }
  if (c.series.empty()) return {};
  return {{c.id, svg::render_line_chart(c)}};
}

void charts_div(std::string& out, const std::vector<Chart>& charts) {
  out += "<div class=\"charts\">";
  for (const Chart& c : charts) out += c.svg;
  out += "</div>";
}

// "Where the time goes" (time_split.h) per backend × scenario. (A client-limited run is named
// in the notes on the input: run_folder.h.)
void time_section(std::string& out, const Study& study) {
  auto it = std::back_inserter(out);
  std::string body;
  std::vector<Chart> charts;
  for (size_t g = 0; g < study.groups.size(); ++g) {
    const Group& group = study.groups[g];
    const auto splits = time_splits(group);
    if (const std::string s = time_sentence(group, splits); !s.empty())
      fmt::format_to(std::back_inserter(body), "<li data-backend=\"{}\">{}</li>",
                     escape(group.backend), escape(s));
    if (auto c = time_chart(group, splits, fmt::format("time-{}", g)))
      charts.push_back({c->id, svg::render_bar_chart(*c)});
  }
  if (body.empty() && charts.empty()) return;
  out += "<section id=\"time\"><h2>Where the time goes</h2>";
  if (!body.empty()) fmt::format_to(it, "<ul>{}</ul>", body);
  charts_div(out, charts);
  out +=
      "<p class=\"note\">Server times: per request where the server reports them (TGI headers, "
      "llama.cpp timings), else its request-phase histograms over the run (vLLM, TGI "
      "/metrics); client + network is what remains of the client's e2e.</p>";
  out += "</section>\n";
}

}  // namespace

Study study_of(const std::vector<RunData>& runs, const ReportOptions& o) {
  StudyOptions so;
  so.sla = o.sla;
  so.max_error_rate = o.max_error_rate;
  so.min_requests = o.min_requests;
  so.at_concurrency = o.at_concurrency;
  return analyse_study(runs, so);
}

std::vector<std::pair<std::string, std::string>> report_charts(const std::vector<RunData>& runs,
                                                               const ReportOptions& o) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Chart& c : load_charts(group_runs(runs))) out.emplace_back(c.id, c.svg);
  for (const Chart& c : pareto_chart_list(group_runs(runs))) out.emplace_back(c.id, c.svg);
  for (const Chart& c : cdf_charts(study_of(runs, o))) out.emplace_back(c.id, c.svg);
  for (const Chart& c : quality_charts(group_runs(runs))) out.emplace_back(c.id, c.svg);
  for (size_t i = 0; i < runs.size(); ++i)
    for (const Chart& c : timeseries_charts(runs[i], i)) out.emplace_back(c.id, c.svg);
  return out;
}

std::string render_html_report(const std::vector<RunData>& runs, const ReportOptions& o) {
  const std::vector<RunGroup> groups = group_runs(runs);
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>"
                 "<style>{}</style></head><body>\n<h1>{}</h1>\n",
                 escape(o.title), kCss, escape(o.title));
  fmt::format_to(it, "<p>{} run{} · {} backend/scenario group{} · servebench {}</p>\n", runs.size(),
                 runs.size() == 1 ? "" : "s", groups.size(), groups.size() == 1 ? "" : "s",
                 escape(o.tool_version));

  std::vector<std::string> notes;
  for (const RunData& r : runs)
    for (const std::string& w : r.warnings) notes.push_back(w);
  if (!notes.empty()) {
    out += "<section id=\"notes\"><h2>Notes on the input</h2><div class=\"note\"><ul>";
    for (const auto& n : notes) fmt::format_to(it, "<li>{}</li>", escape(n));
    out += "</ul></div></section>\n";
  }

  if (!o.sla.empty()) {
    out += "<section id=\"sla\"><h2>SLA compliance</h2><p>Rules: ";
    for (size_t i = 0; i < o.sla.size(); ++i)
      fmt::format_to(it, "{}{}", i ? "; " : "", escape(o.sla[i].describe()));
    out += ".</p>";
    html_table(out, sla_table(runs, o.sla));
    out += "</section>\n";
  }

  const Study study = study_of(runs, o);
  out += "<section id=\"recommendation\"><h2>Recommendation</h2><ul>";
  for (const Recommendation& r : recommend(study))
    fmt::format_to(it, "<li data-scenario=\"{}\" data-winner=\"{}\">{}</li>", escape(r.scenario),
                   escape(r.winner.value_or("")), escape(r.text));
  out += "</ul></section>\n";

  out += "<section id=\"comparison\"><h2>The study's tables</h2>";
  for (const std::string& n : study_notes(study))
    fmt::format_to(it, "<p class=\"note\">{}</p>", escape(n));
  for (const Table& t : study_tables(study)) {
    fmt::format_to(it, "<h3>{}</h3>", escape(t.title));
    html_table(out, t);
  }
  if (const auto qc = quality_charts(groups); !qc.empty()) charts_div(out, qc);
  out += "<details><summary>Every load: P99 e2e and QPS per backend × scenario</summary>";
  for (const Table& t : comparison_tables(groups)) {
    fmt::format_to(it, "<h3>{}</h3>", escape(t.title));
    html_table(out, t);
  }
  out += "</details></section>\n";

  if (has_economics(runs)) {
    out += "<section id=\"economics\"><h2>Energy, cost and hardware</h2><ul>";
    for (const Cheapest& c : cheapest_meeting_slo(study))
      fmt::format_to(it, "<li data-scenario=\"{}\" data-cheapest=\"{}\">{}</li>",
                     escape(c.scenario), escape(c.ranked.empty() ? "" : c.ranked[0].backend),
                     escape(c.text));
    out += "</ul>";
    html_table(out, hardware_table(study, o.quality_reference));
    out +=
        "<p class=\"note\">Energy: sampled power integrated over each run's measured window "
        "(summary.json energy: its source, samples and gaps); cost: the run's price per hour × "
        "that window. Simulated runs use the simulator's power model and are in model "
        "time.</p></section>\n";
  }

  const auto lc = load_charts(groups);
  if (!lc.empty()) {
    out += "<section id=\"load\"><h2>Against load</h2>";
    charts_div(out, lc);
    if (const auto pc = pareto_chart_list(groups); !pc.empty()) {
      out += "<h3>Throughput, energy and cost against interactivity (Pareto)</h3>";
      charts_div(out, pc);
    }
    out += "</section>\n";
  }

  time_section(out, study);

  out += "<section id=\"cdf\"><h2>Latency distributions (CDF, measured ok requests)</h2>";
  charts_div(out, cdf_charts(study));
  out += "</section>\n";

  out += "<section id=\"timeseries\"><h2>Over time</h2>";
  // A study of many runs charts over time only its runs at the named load (the per-load
  // tables'): the answers are above, and every run's own report is one command away.
  const bool every_run = runs.size() <= kMaxOverTimeRuns || !study.at_load;
  if (!every_run)
    fmt::format_to(
        it,
        "<p class=\"note\">Over time: the {} runs at concurrency {:g} (the study's named "
        "load). Any other run: <code>servebench report RUN_DIR</code>.</p>",
        std::count_if(runs.begin(), runs.end(),
                      [&](const RunData& r) {
                        const LoadPoint l = load_of(r.view);
                        return l.kind == "concurrency" && l.value == *study.at_load;
                      }),
        *study.at_load);
  for (size_t i = 0; i < runs.size(); ++i) {
    const LoadPoint load = load_of(runs[i].view);
    if (!every_run && !(load.kind == "concurrency" && load.value == *study.at_load)) continue;
    const auto charts = timeseries_charts(runs[i], i);
    fmt::format_to(it, "<details{}><summary>{}</summary>", i < 4 ? " open" : "",
                   escape(runs[i].name));
    if (charts.empty())
      fmt::format_to(it,
                     "<p>Too few time buckets for an over-time chart ({} of {} needed; a "
                     "shorter --bucket-interval gives more).</p>",
                     runs[i].view.timeseries.size(), kMinBuckets);
    else
      charts_div(out, charts);
    out += "</details>";
  }
  out += "</section>\n";

  out += "<section id=\"runs\"><h2>Runs</h2>";
  html_table(out, run_summary_table(runs));
  out += "</section>\n";

  out += "<section id=\"resources\"><h2>Resource use</h2>";
  bool any_telemetry = false;
  for (const RunData& r : runs)
    if (r.summary.contains("telemetry")) {
      any_telemetry = true;
      html_table(out, telemetry_table(r));  // every sample: summary.json and telemetry.jsonl
    }
  if (!any_telemetry)
    out +=
        "<p>No GPU or server metrics were collected in these runs (summary.json has no "
        "telemetry).</p>";
  out += "</section>\n";

  out += "<section id=\"config\"><h2>Effective configuration and environment</h2>";
  for (const RunData& r : runs)
    fmt::format_to(it,
                   "<details><summary>{} ({})</summary><h3>config</h3><pre>{}</pre><h3>host</h3>"
                   "<pre>{}</pre><h3>run</h3><pre>{}</pre></details>",
                   escape(r.name), escape(r.dir),
                   escape(r.summary.value("config", json::object())
                              .dump(2, ' ', false, json::error_handler_t::replace)),
                   escape(r.summary.value("host", json::object())
                              .dump(2, ' ', false, json::error_handler_t::replace)),
                   escape(r.summary.value("run", json::object())
                              .dump(2, ' ', false, json::error_handler_t::replace)));
  out += "</section>\n";

  out += "<section id=\"glossary\"><h2>Glossary</h2><dl>";
  for (const auto& [term, def] : glossary())
    fmt::format_to(it, "<dt>{}</dt><dd>{}</dd>", escape(term), escape(def));
  out += "</dl></section>\n</body></html>\n";
  return out;
}

}  // namespace sb::report
