// Catalog entries against published measurements of real servers, in virtual time: the
// scheduler of the catalog's SimConfig driven by a closed loop (each of `c` users sends its
// next request when its previous one ends), as the benchmark clients behind the sources do.
//
// Source: AIConfigurator's silicon measurements (github.com/ai-dynamo/aiconfigurator,
// src/aiconfigurator/systems/silicon_sample.csv, later under aic-core/src/aiconfigurator_core/
// systems/; columns silicon_ttft_ms, silicon_tpot_ms):
//   R2: 1x H100 SXM, TensorRT-LLM 1.0.0rc3, meta-llama/Llama-3.1-8B-Instruct BF16, TP 1,
//       ISL 1024 / OSL 512, concurrency 8..128 (TPOT);
//   R3: 1x H200 SXM, vLLM 0.12.0, nvidia/Llama-3.1-8B-Instruct-FP8 (FP8 weights and KV),
//       TP 1, ISL 1000 / OSL 100 at c112 and ISL 4000 / OSL 1000 at c128 (TTFT and TPOT).
// Figures as such clients define them: TTFT = first token - send, TPOT = (last token - first
// token) / (OSL - 1), each the mean over the measured requests; the measured requests are those
// sent after every user's first one ended (steady state, no start-up burst).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "sim/catalog.h"
#include "sim/scheduler.h"

namespace sb::sim {
namespace {

struct Measured {
  double ttft_ms = 0, tpot_ms = 0;
  size_t requests = 0;
};

// `users` closed-loop users, prompts of `isl` tokens, `osl` tokens each (ignore_eos); the
// means over `measure` requests sent after the first `users` ones ended.
Measured closed_loop(const SimConfig& c, int users, int64_t isl, int64_t osl, size_t measure) {
  Scheduler s(c);
  struct Open {
    TimePoint sent{}, first{};
    bool measured = false;
  };
  std::unordered_map<uint64_t, Open> open;
  std::vector<SchedEvent> ev;
  uint64_t next_id = 1;
  size_t ended = 0;
  double ttft_sum = 0, tpot_sum = 0;
  Measured m;
  auto send = [&](TimePoint t) {
    const uint64_t id = next_id++;
    open[id] = {t, {}, ended >= static_cast<size_t>(users)};
    EXPECT_EQ(s.submit({id, isl, osl, osl, {}}, t), Admission::accepted);
  };
  for (int u = 0; u < users; ++u) send(TimePoint{});
  s.advance(TimePoint{}, ev);
  while (m.requests < measure) {
    const auto t = s.next_event();
    if (!t) break;
    ev.clear();
    s.advance(*t, ev);
    for (const auto& e : ev) {
      if (e.kind != SchedEvent::Kind::token) continue;
      Open& o = open[e.id];
      if (e.index == 1) o.first = e.time;
      if (!e.last) continue;
      if (o.measured) {
        ttft_sum += to_ms(o.first - o.sent);
        tpot_sum += to_ms(e.time - o.first) / static_cast<double>(osl - 1);
        ++m.requests;
      }
      open.erase(e.id);
      ++ended;
      send(e.time);
    }
    ev.clear();
    s.advance(*t, ev);  // a request sent at *t may start a step at once
  }
  if (m.requests > 0) {
    m.ttft_ms = ttft_sum / static_cast<double>(m.requests);
    m.tpot_ms = tpot_sum / static_cast<double>(m.requests);
  }
  return m;
}

double error_pct(double predicted, double real) {
  return 100.0 * (predicted / real - 1);
}

struct Row {
  const char* metric;
  int concurrency;
  int64_t isl, osl;
  double real_ms;
  // Why the row is printed but not asserted: a gap the GPU and precision figures cannot close
  // (docs/simulator.md, "Catalog against published measurements"); nullptr: asserted.
  const char* gap = nullptr;
};

// Prints the table and checks every row without a gap within `tolerance_pct`.
void check(const char* title, const SimConfig& c, const std::vector<Row>& rows,
           double tolerance_pct) {
  std::printf("%s\n%6s %5s %5s %-5s %10s %8s %8s %9s\n", title, "level", "ISL", "OSL", "",
              "predicted", "real", "err %", "requests");
  for (const Row& r : rows) {
    const Measured m = closed_loop(c, r.concurrency, r.isl, r.osl, 4 * r.concurrency);
    const double predicted = std::string_view(r.metric) == "TTFT" ? m.ttft_ms : m.tpot_ms;
    const double err = error_pct(predicted, r.real_ms);
    std::printf("%6s %5lld %5lld %-5s %10.2f %8.2f %+8.1f %9zu\n",
                ("c" + std::to_string(r.concurrency)).c_str(), static_cast<long long>(r.isl),
                static_cast<long long>(r.osl), r.metric, predicted, r.real_ms, err, m.requests);
    if (r.gap) {
      std::printf("       not asserted: %s\n", r.gap);
      continue;
    }
    EXPECT_NEAR(err, 0, tolerance_pct) << title << " " << r.metric << " at c" << r.concurrency;
  }
}

TEST(CatalogReality, R2TrtllmLlama31On1xH100) {
  const SimConfig c = config_of({"H100", "llama-3.1-8b", "trtllm", "bf16", 1});
  check("R2: H100 SXM, trtllm, Llama-3.1-8B BF16, TP1 (AIConfigurator silicon_sample.csv)", c,
        {{"TPOT", 8, 1024, 512, 7.42},
         {"TPOT", 16, 1024, 512, 8.35},
         {"TPOT", 32, 1024, 512, 9.88},
         {"TPOT", 64, 1024, 512, 13.1},
         {"TPOT", 128, 1024, 512, 19.3}},
        20);
}

TEST(CatalogReality, R3VllmLlama31Fp8On1xH200) {
  const SimConfig c = config_of({"H200", "llama-3.1-8b", "vllm", "fp8", 1});
  check("R3: H200 SXM, vllm, Llama-3.1-8B FP8, TP1 (AIConfigurator silicon_sample.csv)", c,
        {{"TTFT", 112, 1000, 100, 71.9},
         {"TPOT", 112, 1000, 100, 11.3,
          "the measured TTFT and TPOT mean a 1,000-token prompt and 100 tokens every 1.19 s per "
          "user at 112 users: 94 k prompt tokens/s, 1.45 PFLOP/s of matmuls alone (2 x 6.98 B "
          "non-embedding weights a token), 73% of the H200's dense FP8 peak before attention "
          "and KV reads; at 70% of peak the model saturates"},
         {"TTFT", 128, 4000, 1000, 115},
         {"TPOT", 128, 4000, 1000, 22.0}},
        20);
}

}  // namespace
}  // namespace sb::sim
