// servebench's engine against the in-process simulator over real loopback HTTP:
// every API, stream and not, closed and open loop, warm-up, faults, and the
// client's measurements against the server's own timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "../support/timing_slack.h"
#include "common/error.h"
#include "metrics/run_summary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

using engine::LoadMode;
using protocol::Api;

struct ApiCase {
  Api api;
  bool stream;
};

class EveryApi : public ::testing::TestWithParam<ApiCase> {};

TEST_P(EveryApi, AllRequestsSucceedWithServerTokenCounts) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, GetParam().api, GetParam().stream);
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 20u);
  const auto trace = trace_by_id(*sim);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << to_string(r.error_class) << ": " << r.error;
    EXPECT_EQ(r.status, 200);
    const auto it = trace.find(request_id(r.id));
    ASSERT_NE(it, trace.end()) << r.id;
    EXPECT_EQ(r.output_tokens, it->second.output_tokens) << r.id;
    EXPECT_EQ(r.output_tokens, 12);
    EXPECT_NE(r.output_tokens_source, metrics::TokenSource::estimate);
    ASSERT_TRUE(r.ttft_ms() && r.e2e_ms());
    if (GetParam().stream) {
      // The instant preset's 1 ms steps: a client delayed past the last step (ASan on a busy
      // CI runner: 20 ms) reads all 12 events at once, so TTFT may equal e2e; the server wrote
      // them a step apart (its trace). TTFT and the 11 gaps add up to e2e (the gaps are floats).
      EXPECT_GT(it->second.token_ns.back(), it->second.token_ns.front()) << r.id;
      EXPECT_LE(*r.ttft_ms(), *r.e2e_ms());
      EXPECT_EQ(r.events, 12u);
      ASSERT_EQ(r.itl_ms.size(), 11u);
      double itl_sum_ms = 0;
      for (double itl : r.itl_ms) itl_sum_ms += itl;
      EXPECT_NEAR(*r.ttft_ms() + itl_sum_ms, *r.e2e_ms(), 1e-3);
      EXPECT_TRUE(r.tpot_ms());
    } else {
      EXPECT_EQ(*r.ttft_ms(), *r.e2e_ms());
      EXPECT_EQ(r.events, 1u);
    }
    EXPECT_GE(*r.dispatch_delay_ms(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Apis, EveryApi,
                         ::testing::Values(ApiCase{Api::tgi, true}, ApiCase{Api::tgi, false},
                                           ApiCase{Api::openai, true}, ApiCase{Api::openai, false},
                                           ApiCase{Api::openai_chat, true},
                                           ApiCase{Api::openai_chat, false}),
                         [](const auto& info) {
                           return std::string(protocol::to_string(info.param.api) == "openai-chat"
                                                  ? "openai_chat"
                                                  : protocol::to_string(info.param.api)) +
                                  (info.param.stream ? "_stream" : "_whole");
                         });

TEST(EngineSim, GenericTemplateDrivesACustomRoute) {
  // The reference study's FastAPI route: POST /generate {"inputs", "parameters"}.
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::generic, false);
  cfg.adapter.generic_template =
      R"({"inputs": "{{prompt}}", "parameters": {"max_new_tokens": {{max_tokens}}}})";
  cfg.adapter.generic_body_pointer = "/generated_text";
  cfg.adapter.generic_stream_pointer = "/token/text";
  cfg.endpoint = "/generate";
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 20u);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_GT(r.output_tokens, 0);
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::estimate);
  }
}

TEST(EngineSim, WarmupRequestsComeFirstAndAreFlagged) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::openai);
  cfg.load.warmup = 3;
  cfg.load.num_requests = 5;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 8u);
  int64_t last_warm_end = 0, first_measured_send = INT64_MAX;
  for (const auto& r : result.records) {
    EXPECT_EQ(r.warmup, r.id < 3) << r.id;
    if (r.warmup)
      last_warm_end = std::max(last_warm_end, r.t_end_ns);
    else
      first_measured_send = std::min(first_measured_send, r.t_send_ns);
  }
  EXPECT_LE(last_warm_end, first_measured_send);  // the phases do not overlap
  metrics::RunInfo info;
  const auto s = metrics::summarize_run(result.records, info);
  EXPECT_EQ(s.requests.total, 5);
  EXPECT_EQ(s.requests.warmup, 3);
}

TEST(EngineSim, OpenLoopSendsAtScheduledAbsoluteTimes) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::openai);
  cfg.load.mode = LoadMode::open;
  cfg.load.request_rate = 100;
  cfg.load.arrival = load::Arrival::constant;
  cfg.load.num_requests = 40;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 40u);
  const int64_t t0 = result.records[0].t_sched_ns;
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << r.error;
    // Constant 100/s: request i is scheduled exactly i * 10 ms after request 0.
    EXPECT_EQ(r.t_sched_ns - t0, static_cast<int64_t>(r.id) * 10'000'000) << r.id;
    EXPECT_GE(r.t_send_ns, r.t_sched_ns);
  }
  metrics::RunInfo info;
  info.load_mode = "open";
  info.target_rate = 100;
  const auto s = metrics::summarize_run(result.records, info);
  ASSERT_TRUE(s.load.achieved_rate);
  EXPECT_NEAR(*s.load.achieved_rate, 100.0, 10.0);
}

TEST(EngineSim, MaxConcurrencyQueuesOpenLoopSendsAndCountsTheWait) {
  // 50 ms requests offered at 200/s with at most 2 in flight: the queue grows,
  // and the wait shows as dispatch delay, never as hidden time.
  auto sim = start_sim("instant", 1.0);
  auto cfg = config_for(*sim, Api::openai);
  cfg.workload.output_tokens = 50;  // 50 x 1 ms steps
  cfg.load.mode = LoadMode::open;
  cfg.load.request_rate = 200;
  cfg.load.arrival = load::Arrival::constant;
  cfg.load.max_concurrency = 2;
  cfg.load.num_requests = 12;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 12u);
  // At no instant were more than 2 requests between send and end.
  for (const auto& a : result.records) {
    int overlapping = 0;
    for (const auto& b : result.records)
      if (b.t_send_ns <= a.t_send_ns && a.t_send_ns < b.t_end_ns) ++overlapping;
    EXPECT_LE(overlapping, 2) << a.id;
  }
  const auto& last = result.records.back();
  EXPECT_GT(*last.dispatch_delay_ms(), 100.0);  // queued behind ~5 rounds of 50 ms
  EXPECT_GT(*last.scheduled_e2e_ms(), *last.e2e_ms() + 100.0);
}

TEST(EngineSim, ClientTimingAgreesWithServerTruth) {
  // Small-scale accuracy check (the 1,000-stream version is bench/accuracy_bench).
  // Each token's arrival at the client is compared with the instant the server
  // wrote it; both clocks are this host's steady_clock.
  auto sim = start_sim("instant", 20.0);  // 20 ms decode steps
  auto cfg = config_for(*sim, Api::openai);
  cfg.load.concurrency = 50;
  cfg.load.num_requests = 100;
  cfg.workload.output_tokens = 10;
  const auto result = engine::run_benchmark(cfg, {});
  const auto trace = trace_by_id(*sim);
  const int64_t origin = result.run_start.time_since_epoch().count();
  std::vector<double> first_delay_ms, itl_diff_ms;
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << r.error;
    const auto& t = trace.at(request_id(r.id));
    ASSERT_EQ(t.token_ns.size(), 10u);
    first_delay_ms.push_back((origin + r.t_first_ns - t.token_ns.front()) / 1e6);
    for (size_t i = 0; i < r.itl_ms.size(); ++i)
      itl_diff_ms.push_back(std::abs(r.itl_ms[i] - (t.token_ns[i + 1] - t.token_ns[i]) / 1e6));
  }
  auto p99 = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(0.99 * static_cast<double>(v.size() - 1))];
  };
  const double first_p99 = p99(first_delay_ms);
  const double itl_p99 = p99(itl_diff_ms);
  RecordProperty("first_token_delivery_p99_ms", std::to_string(first_p99));
  RecordProperty("itl_abs_error_p99_ms", std::to_string(itl_p99));
  EXPECT_GE(*std::min_element(first_delay_ms.begin(), first_delay_ms.end()), 0.0);
  // Bounds: 1 ms is the target at full scale on an idle machine; a shared 2-core
  // CI runner gets 5 ms so that this checks correctness, not the machine's load.
  // Under ASan+UBSan (`make test`'s second pass sets SERVEBENCH_SANITIZED=1) the client
  // runs several times slower: there only a sanity bound; accuracy is the normal pass's job.
  const double bound_ms = testing::sanitized() ? 100.0 : 5.0;
  EXPECT_LT(first_p99, bound_ms);
  EXPECT_LT(itl_p99, bound_ms);
}

struct FaultCase {
  const char* header;
  ErrorClass expected;
};

class Faults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(Faults, EachFaultHasItsErrorClassAndEveryRecordIsKept) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::openai_chat);
  cfg.headers.emplace_back("x-sim-fault", GetParam().header);
  cfg.load.num_requests = 6;
  cfg.load.concurrency = 2;
  cfg.timeouts.first_token = std::chrono::milliseconds(300);
  cfg.timeouts.idle = std::chrono::milliseconds(300);
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 6u);
  for (const auto& r : result.records) {
    EXPECT_EQ(r.error_class, GetParam().expected)
        << GetParam().header << " -> " << to_string(r.error_class) << ": " << r.error;
    EXPECT_NE(r.t_end_ns, metrics::kNoTime);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SimFaults, Faults,
    ::testing::Values(FaultCase{"status=503", ErrorClass::overloaded},
                      FaultCase{"status=429", ErrorClass::rate_limited},
                      FaultCase{"status=500", ErrorClass::server_error},
                      FaultCase{"status=422", ErrorClass::validation},
                      FaultCase{"status=408", ErrorClass::timeout},
                      FaultCase{"disconnect_after=3", ErrorClass::incomplete_stream},
                      FaultCase{"reset_after=3", ErrorClass::connection_reset},
                      FaultCase{"malformed_after=2", ErrorClass::malformed},
                      FaultCase{"never_respond=1", ErrorClass::timeout_first_token},
                      FaultCase{"stall_ms=2000,stall_after=2", ErrorClass::timeout_idle}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(EngineSim, UnreachableTargetFailsBeforeTheRun) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::openai);
  sim->stop();  // nothing listens on that port any more
  try {
    engine::run_benchmark(cfg, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unreachable);
    EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << e.what();
  }
}

TEST(EngineSim, DurationBoundStopsIssuing) {
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::openai);
  cfg.load.num_requests = 0;
  cfg.load.duration = std::chrono::milliseconds(500);
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_GT(result.records.size(), 10u);
  for (const auto& r : result.records) {
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_LT(r.t_sched_ns, 600'000'000);
  }
}

}  // namespace
}  // namespace sb::testing

namespace sb::testing {
namespace {

TEST(EngineSimBadInput, NonSseBodyOnAStreamingRequestIsMalformed) {
  // TGI's non-streaming /generate answers JSON even when a stream was asked for.
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::tgi, true);
  cfg.endpoint = "/generate";
  cfg.load.num_requests = 3;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 3u);
  for (const auto& r : result.records) {
    EXPECT_EQ(r.error_class, ErrorClass::malformed) << r.error;
    EXPECT_NE(r.error.find("not an SSE stream"), std::string::npos) << r.error;
  }
}

TEST(EngineSimBadInput, EventOverTheLimitIsMalformedAndTheRunGoesOn) {
  // TGI's last event repeats the whole generated text: 400 tokens of text exceed 1 KiB.
  auto sim = start_sim();
  auto cfg = config_for(*sim, Api::tgi, true);
  cfg.max_event_bytes = 1024;
  cfg.workload.output_tokens = 400;
  cfg.load.num_requests = 4;
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 4u);
  for (const auto& r : result.records) {
    EXPECT_EQ(r.error_class, ErrorClass::malformed) << r.error;
    EXPECT_NE(r.error.find("1024"), std::string::npos) << r.error;
    EXPECT_EQ(r.events, 399u);  // every token event before the oversized final one was kept
  }
}

TEST(EngineSimBadInput, GoodputCountsOnlyRequestsMeetingTheSlo) {
  // 20 ms steps: TTFT ~20 ms, e2e ~ 200 ms for 10 tokens. An e2e bound of 100 ms fails all,
  // a TTFT bound of 150 ms passes all.
  auto sim = start_sim("instant", 20.0);
  auto cfg = config_for(*sim, Api::openai);
  cfg.workload.output_tokens = 10;
  cfg.load.num_requests = 8;
  const auto result = engine::run_benchmark(cfg, {});
  metrics::RunInfo info;
  info.slo.ttft_ms = 150;
  auto s = metrics::summarize_run(result.records, info);
  EXPECT_EQ(s.goodput.good, 8);
  info.slo.e2e_ms = 100;
  s = metrics::summarize_run(result.records, info);
  EXPECT_EQ(s.goodput.good, 0);
  EXPECT_EQ(*s.goodput.fraction, 0.0);
}

}  // namespace
}  // namespace sb::testing
