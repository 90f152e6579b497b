#include "report/study_format.h"

#include <fmt/format.h>

namespace sb::report {
namespace {

std::string bare(double ms) {
  if (ms >= 1e6) return fmt::format("{:.0f} s", ms / 1000);
  if (ms >= 1000) return fmt::format("{:.3g} s", ms / 1000);
  return fmt::format("{:.3g} ms", ms);
}

std::string interval_text(const Interval& ci, const char* unit_less_fmt, double scale_div) {
  auto v = [&](double x) { return fmt::format(fmt::runtime(unit_less_fmt), x / scale_div); };
  return fmt::format("[{}{}, {}{}]", ci.lo_open ? "<" : "", v(ci.lo), ci.hi_open ? ">" : "",
                     v(ci.hi));
}

}  // namespace

std::string duration_text(double ms) {
  return bare(ms);
}

std::string latency_cell(const Estimate& e, int64_t min_n, double scale) {
  if (!e.value) return e.n > 0 ? fmt::format("— (n={})", e.n) : "—";
  if (e.n < min_n) return fmt::format("insufficient (n={})", e.n);
  // The interval in the value's unit: seconds when the value is shown in seconds.
  const bool in_s = *e.value >= 1000;
  std::string out = bare(*e.value);
  if (e.ci) out += " " + interval_text(*e.ci, "{:.3g}", in_s ? 1000 : 1);
  out += fmt::format(" n={}", e.n);
  if (scale != 1) out += fmt::format(" ≈{}", bare(*e.value / scale));
  return out;
}

std::string rate_cell(const Estimate& e, int64_t min_n, double scale) {
  if (!e.value) return "—";
  if (e.n < min_n) return fmt::format("insufficient (n={})", e.n);
  std::string out = fmt::format("{:.4g} req/s", *e.value);
  if (e.ci) out += " " + interval_text(*e.ci, "{:.4g}", 1);
  out += fmt::format(" n={}", e.n);
  if (scale != 1) out += fmt::format(" ≈{:.3g}/s", *e.value * scale);
  return out;
}

std::string load_text(const std::string& kind, double load) {
  return kind == "rate" ? fmt::format("{:g} req/s", load) : fmt::format("concurrency {:g}", load);
}

}  // namespace sb::report
