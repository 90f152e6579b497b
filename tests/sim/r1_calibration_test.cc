// The tgi preset (tgi-1.x behaviour on an A10G with Llama-2-7B FP16) against the published
// measurements of Hugging Face's "Llama 2 on Amazon SageMaker a Benchmark": TGI 1.0.3 on one
// A10G (ml.g5.2xlarge), k6 constant virtual users for 90 s, ShareGPT prompts, max_new_tokens 50
// (github.com/philschmid/text-generation-inference-tests: results/sagemaker.csv, the rows
// meta-llama/Llama-2-7b-hf, ml.g5.2xlarge, TP 1).
//
// How that source defines its figures (sagemaker_llm_container/utils/get_metrics.py reads TGI's
// per-request log line, router/src/server.rs of TGI 1.0.3):
//   ms/token   = inference_time / generated_tokens, inference_time = from the start of the
//                request's prefill (the router's batch_time) to its last token: it includes
//                its own prefill and every other request's prefill that paused its batch;
//                the table gives the median over the run's requests;
//   tokens/s   = virtual_users x 50 / mean(total_time), total_time = the router's time from
//                the request's arrival to its last token (validation + queue + inference).
// The driver below runs the Scheduler in virtual time as k6 does (each user sends its next
// request when its previous one ends) and computes both figures that way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include "sim/config.h"
#include "sim/scheduler.h"

namespace sb::sim {
namespace {

struct LevelResult {
  double tokens_per_s = 0;
  double ms_per_token_p50 = 0;
  size_t requests = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `users` closed-loop users for `duration_s` of model time, prompts of `prompt_tokens`,
// `new_tokens` generated each; the figures over the requests that ended within the duration.
LevelResult run_level(const SimConfig& c, int users, int64_t prompt_tokens, int64_t new_tokens,
                      double duration_s) {
  Scheduler s(c);
  struct Open {
    TimePoint arrival{}, admitted{};
  };
  std::unordered_map<uint64_t, Open> open;
  std::vector<double> ms_per_token, total_ms;
  std::vector<SchedEvent> ev;
  uint64_t next_id = 1;
  const TimePoint t0{};
  const TimePoint stop = t0 + from_s(duration_s);
  auto send = [&](TimePoint t) {
    const uint64_t id = next_id++;
    open[id].arrival = t;
    EXPECT_EQ(s.submit({id, prompt_tokens, new_tokens, new_tokens}, t), Admission::accepted);
  };
  for (int u = 0; u < users; ++u) send(t0);
  s.advance(t0, ev);
  while (auto t = s.next_event()) {
    if (*t > stop) break;
    ev.clear();
    s.advance(*t, ev);
    for (const auto& e : ev) {
      Open& o = open[e.id];
      if (e.kind == SchedEvent::Kind::admitted) o.admitted = e.time;
      if (e.kind != SchedEvent::Kind::token || !e.last) continue;
      ms_per_token.push_back(to_ms(e.time - o.admitted) / static_cast<double>(e.index));
      total_ms.push_back(to_ms(e.time - o.arrival));
      open.erase(e.id);
      send(e.time);
    }
    ev.clear();
    s.advance(*t, ev);  // a request sent at *t may start a step at once
    for (const auto& e : ev)
      if (e.kind == SchedEvent::Kind::admitted) open[e.id].admitted = e.time;
  }
  LevelResult r;
  r.requests = total_ms.size();
  if (r.requests == 0) return r;
  double mean_total_ms = 0;
  for (double x : total_ms) mean_total_ms += x / static_cast<double>(total_ms.size());
  r.tokens_per_s = users * static_cast<double>(new_tokens) / (mean_total_ms / 1e3);
  r.ms_per_token_p50 = median(ms_per_token);
  return r;
}

struct R1Row {
  int users;
  double tokens_per_s;
  double ms_per_token;
};
// results/sagemaker.csv, meta-llama/Llama-2-7b-hf on ml.g5.2xlarge, TP 1: "Thorughput
// (tokens/second)" and "Latency (ms/token) med".
constexpr R1Row kR1[] = {
    {1, 32.38, 30.96}, {5, 131.29, 37.94}, {10, 220.06, 44.93}, {20, 313.53, 60.86}};

// The prompt length: the samples k6 sent (samples.json of that repository, taken in order, the
// second field being the prompt's token count) average 216 tokens over the first 559 (the
// requests of the 20-user run) and 223 over the first 55 (the 1-user run); their medians are
// 77-103 (ShareGPT is skewed). One fixed length stands for that mix: the mean, 216.
constexpr int64_t kPromptTokens = 216;
constexpr int64_t kNewTokens = 50;

TEST(R1Calibration, TgiPresetReproducesTheA10GSageMakerBenchmark) {
  const SimConfig c = preset_config("tgi");
  std::printf("R1: A10G, TGI 1.0.3, Llama-2-7B FP16; prompt %lld tokens, %lld new, 90 s\n",
              static_cast<long long>(kPromptTokens), static_cast<long long>(kNewTokens));
  std::printf("%6s %9s %12s %8s %8s %12s %8s %8s\n", "users", "requests", "tokens/s", "real",
              "err %", "ms/token p50", "real", "err %");
  for (const R1Row& row : kR1) {
    const LevelResult r = run_level(c, row.users, kPromptTokens, kNewTokens, 90.0);
    const double tok_err = 100.0 * (r.tokens_per_s / row.tokens_per_s - 1);
    const double mpt_err = 100.0 * (r.ms_per_token_p50 / row.ms_per_token - 1);
    std::printf("%6d %9zu %12.1f %8.1f %+8.1f %12.1f %8.1f %+8.1f\n", row.users, r.requests,
                r.tokens_per_s, row.tokens_per_s, tok_err, r.ms_per_token_p50, row.ms_per_token,
                mpt_err);
    EXPECT_NEAR(tok_err, 0, 15) << "tokens/s at " << row.users << " users";
    EXPECT_NEAR(mpt_err, 0, 15) << "ms/token at " << row.users << " users";
  }
}

}  // namespace
}  // namespace sb::sim
