#include "workload/trace.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"

namespace sb::workload {
namespace {

constexpr const char* kWindowForms = "START:END, START: or :END in trace seconds (e.g. 60:120)";

// Whole nanoseconds, at most ~285 years (no int64 overflow for a huge window or a slow replay).
int64_t capped_ns(double ns) {
  return std::llround(std::min(ns, 9.0e18));
}

std::string seconds_text(double s) {
  return fmt::format("{:g}", s);
}

}  // namespace

TraceWindow parse_trace_window(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    throw usage_error(fmt::format("--trace-window '{}': no ':'; expected {}", text, kWindowForms));
  TraceWindow w;
  const std::string_view a = text.substr(0, colon), b = text.substr(colon + 1);
  if (!a.empty()) w.start_s = parse_duration_s(a, "--trace-window");
  if (!b.empty()) w.end_s = parse_duration_s(b, "--trace-window");
  if (w.start_s && w.end_s && *w.end_s <= *w.start_s)
    throw usage_error(fmt::format("--trace-window '{}': END must be after START; expected {}", text,
                                  kWindowForms));
  return w;
}

std::string to_string(const TraceWindow& w) {
  return (w.start_s ? seconds_text(*w.start_s) : "") + ":" +
         (w.end_s ? seconds_text(*w.end_s) : "");
}

void validate(const TraceSpec& spec) {
  if (!(spec.speedup >= 1e-3 && spec.speedup <= 1e6))
    throw usage_error(fmt::format(
        "--trace-speedup {}: a factor from 0.001 to 1000000 (2 replays the trace twice as fast, "
        "0.5 at half speed)",
        spec.speedup));
  if (spec.block_tokens < 1 || spec.block_tokens > 1'000'000)
    throw usage_error(fmt::format(
        "--trace-block-tokens {}: the tokens a hash id stands for, 1 to 1000000 (Mooncake: 512)",
        spec.block_tokens));
}

TraceParse parse_trace(std::string_view text, TraceFormat format) {
  TraceParse out;
  const bool csv = format == TraceFormat::burstgpt || format == TraceFormat::azure;
  std::optional<CsvColumns> columns;
  int64_t line_no = 0;
  int64_t last_ns = INT64_MIN;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t\v\f") == std::string_view::npos) continue;
    if (csv && !columns) {
      columns = parse_trace_csv_header(line, format, out.header_error);
      if (!columns) {
        out.header_error = fmt::format("line {}: {}", line_no, out.header_error);
        return out;
      }
      continue;
    }
    ++out.lines;
    TraceLine l =
        csv ? parse_trace_csv_line(line, *columns, format) : parse_trace_json_line(line, format);
    if (!l.ok()) {
      ++out.skipped;
      if (out.issues.size() < kMaxNamedIssues) out.issues.push_back({line_no, std::move(l.error)});
      continue;
    }
    l.entry.line = line_no;
    if (l.entry.t_ns < last_ns && out.out_of_order++ == 0) out.first_out_of_order_line = line_no;
    last_ns = std::max(last_ns, l.entry.t_ns);
    out.entries.push_back(std::move(l.entry));
  }
  if (out.out_of_order > 0)
    std::stable_sort(out.entries.begin(), out.entries.end(),
                     [](const TraceEntry& a, const TraceEntry& b) { return a.t_ns < b.t_ns; });
  return out;
}

double Trace::mean_rate_per_s() const {
  if (offsets.empty()) return 0;
  const double span = to_s(offsets.back() - offsets.front());
  const double n = static_cast<double>(offsets.size());
  return span > 0 ? (n - 1) / span : n;
}

Trace select_trace(TraceParse parsed, const TraceSpec& spec) {
  validate(spec);
  const std::string& path = spec.path;
  if (!parsed.header_error.empty())
    throw usage_error(fmt::format("--trace '{}' {}", path, parsed.header_error));
  Trace t;
  t.spec = spec;
  t.lines = parsed.lines;
  t.skipped = parsed.skipped;
  t.out_of_order = parsed.out_of_order;
  for (const TraceIssue& i : parsed.issues)
    t.warnings.push_back(fmt::format("--trace '{}' line {}: {}; skipped", path, i.line, i.message));
  if (parsed.skipped > static_cast<int64_t>(parsed.issues.size()))
    t.warnings.push_back(fmt::format("--trace '{}': {} bad lines skipped in all, of {}", path,
                                     parsed.skipped, parsed.lines));
  if (parsed.entries.empty())
    throw usage_error(
        fmt::format("--trace '{}' holds no usable {} entry{}", path, to_string(spec.format),
                    parsed.issues.empty()
                        ? std::string(": the file is empty")
                        : fmt::format(" ({} bad lines; the first, line {}: {})", parsed.skipped,
                                      parsed.issues[0].line, parsed.issues[0].message)));
  if (parsed.out_of_order > 0)
    t.warnings.push_back(fmt::format(
        "--trace '{}': timestamps out of order (line {} is earlier than the line before it; {} "
        "such line{}); replaying in time order",
        path, parsed.first_out_of_order_line, parsed.out_of_order,
        parsed.out_of_order == 1 ? "" : "s"));

  const int64_t first_ns = parsed.entries.front().t_ns;
  const double last_s = static_cast<double>(parsed.entries.back().t_ns - first_ns) / 1e9;
  const int64_t start_ns = capped_ns(spec.window.start_s.value_or(0) * 1e9);
  // Past the last entry when there is no END (std::optional trips GCC 12's
  // -Wmaybe-uninitialized here).
  const int64_t end_ns = spec.window.end_s ? capped_ns(*spec.window.end_s * 1e9) : INT64_MAX;
  t.window_start_s = spec.window.start_s.value_or(0);
  t.window_end_s = spec.window.end_s;
  for (TraceEntry& e : parsed.entries) {
    const int64_t since_first = e.t_ns - first_ns;
    if (since_first < start_ns || since_first >= end_ns) {
      ++t.outside_window;
      continue;
    }
    const int64_t delta = since_first - start_ns;
    t.offsets.push_back(
        Nanos(spec.speedup == 1.0 ? delta : capped_ns(static_cast<double>(delta) / spec.speedup)));
    t.entries.push_back(std::move(e));
  }
  if (t.entries.empty())
    throw usage_error(fmt::format(
        "--trace '{}': no entry in --trace-window {} (the trace's entries run from 0 to {} s "
        "after its first)",
        path, to_string(spec.window), seconds_text(last_s)));
  t.span_s = static_cast<double>(t.entries.back().t_ns - first_ns - start_ns) / 1e9;
  return t;
}

Trace load_trace(const TraceSpec& spec) {
  validate(spec);
  std::error_code ec;
  if (std::filesystem::is_directory(spec.path, ec))
    throw usage_error(fmt::format("--trace '{}': a directory, not a file", spec.path));
  std::ifstream in(spec.path, std::ios::binary);
  if (!in)
    throw usage_error(
        fmt::format("--trace '{}': cannot read the file ({})", spec.path, std::strerror(errno)));
  std::ostringstream content;
  content << in.rdbuf();
  return select_trace(parse_trace(content.view(), spec.format), spec);
}

}  // namespace sb::workload
