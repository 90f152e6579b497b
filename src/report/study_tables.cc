#include "report/study_tables.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "report/recommendation.h"
#include "report/study_format.h"
#include "report/time_scale.h"

namespace sb::report {
namespace {

std::string scaled_suffix(const Study& st) {
  if (st.scales.empty()) return "";
  std::string s;
  for (double v : st.scales) s += (s.empty() ? "×" : ", ×") + fmt::format("{:g}", v);
  return " — simulated at " + s;
}

std::string at_words(const Study& st) {
  return st.at_load ? fmt::format("concurrency {:g}", *st.at_load) : "no common load";
}

std::string errors_suffix(const Level& l) {
  if (l.measured == 0 || l.error_rate <= 0) return "";
  return fmt::format(" · {:.0f}% errors{}", l.error_rate * 100,
                     l.top_error.empty() ? "" : " (" + l.top_error + ")");
}

// Telemetry samples a utilisation mean needs (at the default 1 s interval: a 5 s run).
constexpr int64_t kMinTelemetrySamples = 5;

std::string mean_cell(const std::optional<double>& v, const std::vector<double>& points,
                      int64_t n) {
  if (!v) return "—";
  if (n < kMinTelemetrySamples) return fmt::format("insufficient (n={} samples)", n);
  std::string out = fmt::format("{:.1f}", *v);
  if (points.size() >= 2) {
    const Interval ci = mean_interval(points);
    out += fmt::format(" [{:.1f}, {:.1f}]", ci.lo, ci.hi);
  }
  return out + fmt::format(" n={}", n);
}

size_t display_width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

}  // namespace

std::vector<Table> study_tables(const Study& st) {
  const int64_t min_n = st.options.min_requests;
  const std::string sfx = scaled_suffix(st);
  std::vector<Table> out;

  Table p99{"study-p99",
            fmt::format("P99 end-to-end latency at {}{}", at_words(st), sfx),
            {"backend"},
            {}};
  Table ttft{"study-ttft",
             fmt::format("Time to first token at {}{}", at_words(st), sfx),
             {"backend", "scenario", "TTFT p50", "TTFT p99"},
             {}};
  for (const auto& sc : st.scenarios) p99.header.push_back(sc);
  for (const auto& b : st.backends) {
    std::vector<std::string> prow{b};
    for (const auto& sc : st.scenarios) {
      const Group* g = st.group(b, sc);
      const Level* l = g && st.at_load ? g->at(*st.at_load) : nullptr;
      if (!l) {
        prow.push_back("not run");
        if (g) ttft.rows.push_back({b, sc, "not run", "not run"});
        continue;
      }
      prow.push_back(latency_cell(latency_percentile(*l->run, "e2e_ms", 99), min_n, l->time_scale) +
                     errors_suffix(*l));
      ttft.rows.push_back(
          {b, sc, latency_cell(latency_percentile(*l->run, "ttft_ms", 50), min_n, l->time_scale),
           latency_cell(latency_percentile(*l->run, "ttft_ms", 99), min_n, l->time_scale)});
    }
    p99.rows.push_back(prow);
  }
  out.push_back(p99);

  Table peak{"study-peak",
             "Peak throughput, knee and max stable load" + sfx,
             {"backend", "scenario", "peak QPS", "at", "knee", "max stable load", "why it stops"},
             {}};
  for (const auto& b : st.backends)
    for (const auto& sc : st.scenarios) {
      const Group* g = st.group(b, sc);
      if (!g) continue;
      std::string q = "—", at = "—";
      if (g->peak) {
        const Level& l = g->levels[*g->peak];
        q = rate_cell(throughput_rps(*l.run), 0, l.time_scale);
        at = load_text(g->load_kind, l.load);
      } else {
        int64_t most = 0;
        for (const Level& l : g->levels) most = std::max(most, l.measured);
        q = fmt::format("insufficient (n={})", most);
      }
      const std::string why = why_it_stops(*g, st);
      peak.rows.push_back({b, sc, q, at, g->knee ? fmt::format("{:g}", *g->knee) : "none found",
                           g->max_stable ? load_text(g->load_kind, *g->max_stable) : "none",
                           why.empty() ? "stable at every judged level" : why});
    }
  out.push_back(peak);

  Table gpu{"study-gpu",
            fmt::format("GPU use at {} (telemetry){}", at_words(st), sfx),
            {"backend", "scenario", "peak GPU memory (MiB)", "SM util (mean %)",
             "memory-bandwidth util (mean %)"},
            {}};
  for (const auto& b : st.backends)
    for (const auto& sc : st.scenarios) {
      const Group* g = st.group(b, sc);
      const Level* l = g && st.at_load ? g->at(*st.at_load) : nullptr;
      if (!l) continue;
      const GpuUse u = gpu_use_of(l->run->summary);
      if (!u.any()) {
        gpu.rows.push_back({b, sc, "no telemetry", "—", "—"});
        continue;
      }
      gpu.rows.push_back({b, sc,
                          u.mem_used_peak_mib ? fmt::format("{:.0f}", *u.mem_used_peak_mib) : "—",
                          mean_cell(u.sm_util_mean_pct, u.sm_util_points, u.samples),
                          mean_cell(u.mem_bw_util_mean_pct, u.mem_bw_util_points, u.samples)});
    }
  out.push_back(gpu);
  out.push_back(ttft);
  return out;
}

std::vector<std::string> study_notes(const Study& st) {
  std::vector<std::string> notes;
  if (const std::string p = predicted_note(st.predicted, st.runs); !p.empty()) notes.push_back(p);
  if (st.at_load)
    notes.push_back(
        fmt::format("Named load: concurrency {:g} ({}).", *st.at_load, st.at_load_reason));
  notes.push_back(fmt::format(
      "SLOs: {}. A level is judged only with at least {} measured requests, a latency cell "
      "only with {} ok samples; below that a cell reads \"insufficient (n=…)\" and is never "
      "ranked. Cells: value [95% interval] n=samples; '>' or '<' marks a bound beyond the "
      "samples (too few for that percentile).",
      slo_words(st), st.options.min_requests, st.options.min_requests));
  if (const std::string s = scale_note(st.scales); !s.empty())
    notes.push_back(s[0] == 's' ? "S" + s.substr(1) + "." : s + ".");
  return notes;
}

std::string text_table(const Table& t) {
  std::vector<size_t> w(t.header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], display_width(row[i]));
  };
  widen(t.header);
  for (const auto& r : t.rows) widen(r);
  std::string out;
  auto line = [&](const std::vector<std::string>& row) {
    std::string l;
    for (size_t i = 0; i < row.size() && i < w.size(); ++i) {
      l += row[i];
      if (i + 1 < row.size()) l += std::string(w[i] - display_width(row[i]) + 2, ' ');
    }
    out += l + "\n";
  };
  line(t.header);
  size_t total = 0;
  for (size_t x : w) total += x + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& r : t.rows) line(r);
  return out;
}

std::string study_text(const Study& st) {
  std::string out;
  for (const auto& n : study_notes(st)) out += n + "\n";
  for (const Table& t : study_tables(st)) {
    out += "\n" + t.title + "\n";
    out += text_table(t);
  }
  out += "\nRecommendation\n";
  for (const Recommendation& r : recommend(st)) out += "- " + r.text + "\n";
  return out;
}

}  // namespace sb::report
