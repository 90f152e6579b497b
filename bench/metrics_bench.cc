// Cost of the metrics hot path: formatting one requests.jsonl line. Prints figures; asserts
// nothing.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "metrics/request_record.h"
#include "results/request_jsonl.h"

namespace {

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
    sb::results::append_request_jsonl(out, r);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_RequestJsonlLine)->Arg(16)->Arg(128)->Arg(1024);

}  // namespace

BENCHMARK_MAIN();
