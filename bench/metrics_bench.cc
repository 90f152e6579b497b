// Costs of the metrics hot paths: recording into and merging the log-linear histogram,
// histogram percentiles, and formatting one requests.jsonl line. Prints figures; asserts nothing.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "metrics/log_histogram.h"
#include "metrics/request_record.h"
#include "report/request_jsonl.h"

namespace {

using sb::metrics::LogHistogram;

std::vector<int64_t> itl_like_ns(size_t n) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> d(std::log(20e6), 0.5);  // ~20 ms gaps
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(d(rng));
  return v;
}

void BM_HistogramRecord(benchmark::State& state) {
  const auto values = itl_like_ns(1 << 16);
  LogHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record(values[i++ & (values.size() - 1)]);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramMerge(benchmark::State& state) {
  LogHistogram a, b;
  for (int64_t v : itl_like_ns(100'000)) b.record(v);
  for (auto _ : state) a.merge(b);
  benchmark::DoNotOptimize(a.count());
}
BENCHMARK(BM_HistogramMerge);

void BM_HistogramPercentile(benchmark::State& state) {
  LogHistogram h;
  for (int64_t v : itl_like_ns(100'000)) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.percentile(99));
}
BENCHMARK(BM_HistogramPercentile);

void BM_RequestJsonlLine(benchmark::State& state) {
  sb::metrics::RequestRecord r;
  r.id = 123456;
  r.request_class = "chat";
  r.status = 200;
  r.t_sched_ns = 1'000'000'000;
  r.t_send_ns = 1'000'100'000;
  r.t_first_ns = 1'050'000'000;
  r.t_first_content_ns = r.t_first_ns;
  r.t_last_ns = 3'600'000'000;
  r.t_end_ns = 3'600'100'000;
  r.input_tokens = 512;
  r.output_tokens = static_cast<int64_t>(state.range(0));
  r.events = static_cast<uint32_t>(state.range(0));
  r.itl_ms.assign(static_cast<size_t>(state.range(0)) - 1, 20.125f);
  std::string out;
  for (auto _ : state) {
    out.clear();
    sb::report::append_request_jsonl(out, r);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_RequestJsonlLine)->Arg(16)->Arg(128)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
