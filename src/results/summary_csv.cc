#include "results/summary_csv.h"

#include <cmath>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace sb::results {

namespace {

using namespace sb::metrics;

constexpr std::string_view kLatencies[] = {"e2e", "ttft", "tpot", "itl"};
constexpr std::string_view kStats[] = {"mean", "p50", "p90", "p99"};

void cell(std::string& out, const std::optional<double>& v) {
  out += ',';
  if (v && std::isfinite(*v)) fmt::format_to(std::back_inserter(out), "{}", *v);
}

void cell(std::string& out, int64_t v) {
  fmt::format_to(std::back_inserter(out), ",{}", v);
}

void stats_cells(std::string& out, const Distribution& d) {
  for (double v : {d.mean, d.p50, d.p90, d.p99})
    cell(out, d.empty() ? std::nullopt : std::optional<double>(v));
}

}  // namespace

std::string summary_csv_header() {
  std::string out =
      "mode,concurrency,target_rate,requests,ok,failed,requests_per_s,"
      "output_tokens_per_s";
  for (auto m : kLatencies)
    for (auto s : kStats) fmt::format_to(std::back_inserter(out), ",{}_{}_ms", m, s);
  // Time to first output (content) token; reasoning: empty unless some request reasoned.
  out += ",ttfo_p50_ms,ttfo_p99_ms,reasoning_tokens_mean,reasoning_ms_p50";
  out += ",error_rate,goodput_requests_per_s,goodput_fraction,abandonment_rate,items_per_s\n";
  return out;
}

std::string summary_csv_row(const RunSummary& s) {
  std::string out = s.load.mode;  // "closed" | "open": no quoting needed
  const bool open = s.load.mode == "open";
  if (open)
    out += ',';
  else
    cell(out, int64_t{s.load.concurrency});
  cell(out,
       open && s.load.target_rate > 0 ? std::optional<double>(s.load.target_rate) : std::nullopt);
  cell(out, s.requests.total);
  cell(out, s.requests.ok);
  cell(out, s.requests.failed);
  cell(out, s.throughput.requests_per_s);
  cell(out, s.throughput.output_tokens_per_s);
  stats_cells(out, s.metrics.e2e_ms);
  stats_cells(out, s.metrics.ttft_ms);
  stats_cells(out, s.metrics.tpot_ms);
  stats_cells(out, s.metrics.itl_ms);
  const auto& m = s.metrics;
  auto stat = [](const Distribution& d, double v) {
    return d.empty() ? std::nullopt : std::optional<double>(v);
  };
  cell(out, stat(m.ttft_content_ms, m.ttft_content_ms.p50));
  cell(out, stat(m.ttft_content_ms, m.ttft_content_ms.p99));
  cell(out, stat(m.reasoning_tokens, m.reasoning_tokens.mean));
  cell(out, stat(m.reasoning_ms, m.reasoning_ms.p50));
  cell(out, s.requests.total > 0 ? std::optional<double>(static_cast<double>(s.requests.failed) /
                                                         static_cast<double>(s.requests.total))
                                 : std::nullopt);
  cell(out, s.goodput.requests_per_s);
  cell(out, s.goodput.fraction);
  cell(out, s.abandonment ? s.abandonment->rate : std::nullopt);
  cell(out, s.throughput.items_per_s);
  out += '\n';
  return out;
}

}  // namespace sb::results
