// servebench predict's virtual-time run (src/predict/virtual_run.h) against the simulator's own
// scheduler: what it issues (closed loop, open-loop schedule, warm-up, bounds) and how it
// records what the scheduler did, checked against the schedule and the cost model's numbers.
#include "predict/virtual_run.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "load/arrival_schedule.h"
#include "virtual_config.h"

namespace sb::predict {
namespace {

engine::EngineConfig base_config() {
  return testing::tgi_closed_loop(64, 10, 4, 20);
}

sim::SimConfig instant() {
  sim::SimConfig s = sim::preset_config("instant");
  s.server.time_scale = 0.001;  // ignored: virtual time is model time
  return s;
}

TEST(VirtualRun, ALoneClientGetsItsTokensOneStepApartAndSendsWhenItSeesTheEnd) {
  auto c = base_config();
  c.load.concurrency = 1;
  c.load.num_requests = 5;
  const auto r = run_virtual(c, {instant()}, {});
  ASSERT_EQ(r.records.size(), 5u);
  for (size_t i = 0; i < r.records.size(); ++i) {
    const auto& rec = r.records[i];
    EXPECT_TRUE(rec.ok()) << rec.error;
    EXPECT_EQ(rec.output_tokens, 10);
    EXPECT_EQ(rec.output_tokens_source, metrics::TokenSource::details);
    EXPECT_EQ(rec.events, 10u);
    ASSERT_EQ(rec.itl_ms.size(), 9u);
    // The instant preset: 1 ms decode steps, in model time whatever the time scale.
    for (float gap : rec.itl_ms) EXPECT_NEAR(gap, 1.0, 1e-3);
    EXPECT_EQ(rec.t_send_ns, rec.t_sched_ns);
    EXPECT_EQ(rec.t_end_ns, rec.t_last_ns);
    if (i > 0) {
      EXPECT_EQ(rec.t_sched_ns, r.records[i - 1].t_end_ns);  // the slot's next request
    }
  }
  EXPECT_DOUBLE_EQ(r.duration_s, static_cast<double>(r.records.back().t_end_ns) / 1e9);
  EXPECT_NEAR(*r.records[0].e2e_ms() - *r.records[0].ttft_ms(), 9.0, 1e-6);
}

TEST(VirtualRun, ClosedLoopKeepsItsConcurrencyInFlight) {
  const auto c = base_config();
  const auto r = run_virtual(c, {instant()}, {});
  ASSERT_EQ(r.records.size(), 20u);
  int at_start = 0;
  for (const auto& rec : r.records) {
    EXPECT_TRUE(rec.ok()) << rec.error;
    at_start += rec.t_sched_ns == 0 ? 1 : 0;
    // At every request's send, the other slots' requests are in flight: at most 4 overlap.
    int overlapping = 0;
    for (const auto& o : r.records)
      overlapping += o.t_send_ns <= rec.t_send_ns && o.t_end_ns > rec.t_send_ns ? 1 : 0;
    EXPECT_LE(overlapping, 4);
  }
  EXPECT_EQ(at_start, 4);
}

TEST(VirtualRun, WarmupComesFirstAndIsMarked) {
  auto c = base_config();
  c.load.warmup = 3;
  const auto r = run_virtual(c, {instant()}, {});
  ASSERT_EQ(r.records.size(), 23u);
  int64_t warm_end = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(r.records[i].warmup);
    warm_end = std::max(warm_end, r.records[i].t_end_ns);
  }
  for (size_t i = 3; i < r.records.size(); ++i) {
    EXPECT_FALSE(r.records[i].warmup);
    EXPECT_GE(r.records[i].t_sched_ns, warm_end);
  }
}

TEST(VirtualRun, OpenLoopSendsAtTheScheduleOffsets) {
  auto c = base_config();
  c.load.mode = engine::LoadMode::open;
  c.load.request_rate = 50;
  c.load.arrival = load::Arrival::poisson;
  c.load.seed = 7;
  const auto r = run_virtual(c, {instant()}, {});
  const auto offsets = load::make_schedule({50, load::Arrival::poisson, 1.0, 7}, 20);
  ASSERT_EQ(r.records.size(), 20u);
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(r.records[i].t_sched_ns, offsets[i].count());
    EXPECT_EQ(r.records[i].t_send_ns, offsets[i].count());  // no cap: nothing holds them
  }
}

TEST(VirtualRun, OpenLoopFollowsTheRatePattern) {
  auto c = base_config();
  c.load.mode = engine::LoadMode::open;
  c.load.request_rate = 50;
  c.load.seed = 7;
  c.load.rate_pattern = load::parse_rate_pattern("flash:at=0.1s,peak=4,decay=0.2s");
  const auto r = run_virtual(c, {instant()}, {});
  const auto offsets = load::make_schedule({.rate_per_s = 50,
                                            .arrival = load::Arrival::poisson,
                                            .seed = 7,
                                            .pattern = c.load.rate_pattern},
                                           20);
  EXPECT_NE(offsets, load::make_schedule({50, load::Arrival::poisson, 1.0, 7}, 20));
  ASSERT_EQ(r.records.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(r.records[i].t_sched_ns, offsets[i].count());
}

TEST(VirtualRun, AnOpenLoopCapHoldsRequestsBackAndTheWaitIsQueueing) {
  auto c = base_config();
  c.load.mode = engine::LoadMode::open;
  c.load.request_rate = 10'000;  // all due within 2 ms, far faster than they finish
  c.load.max_concurrency = 2;
  const auto r = run_virtual(c, {instant()}, {});
  ASSERT_EQ(r.records.size(), 20u);
  int held = 0;
  for (const auto& rec : r.records) held += rec.t_send_ns > rec.t_sched_ns + 1'000'000 ? 1 : 0;
  EXPECT_GE(held, 15);  // 2 in flight at a time, ~10 ms each
}

TEST(VirtualRun, AFullQueueIsRefusedAsTheLiveSimulatorRefusesIt) {
  auto c = base_config();
  c.load.concurrency = 8;
  c.load.num_requests = 8;
  sim::SimConfig s = sim::preset_config("tgi");
  s.sched.max_batch_size = 1;
  s.sched.queue_limit = 2;
  const auto r = run_virtual(c, {s}, {});
  ASSERT_EQ(r.records.size(), 8u);
  int refused = 0;
  for (const auto& rec : r.records)
    if (!rec.ok()) {
      ++refused;
      // TGI /generate_stream: HTTP 200, then an in-stream "Model is overloaded" event.
      EXPECT_EQ(rec.status, 200);
      EXPECT_EQ(rec.error_class, ErrorClass::overloaded);
      EXPECT_GT(rec.t_end_ns, rec.t_send_ns);  // the refusal takes the server's overhead
    }
  // All 8 arrive within 0.1 ms, inside the first one's 0.5 ms overhead: the queue limit (which
  // counts requests in their overhead phase) takes 2, the other 6 are refused.
  EXPECT_EQ(refused, 6);
}

TEST(VirtualRun, RequestsAreSpreadOverReplicas) {
  auto c = base_config();
  c.load.concurrency = 2;
  c.load.num_requests = 2;
  sim::SimConfig s = sim::preset_config("tgi");
  // One replica serves both one after the other's prefill; two serve them side by side.
  const auto one = run_virtual(c, {s}, {});
  const auto two = run_virtual(c, {s, s}, {});
  ASSERT_EQ(two.records.size(), 2u);
  EXPECT_NEAR(*two.records[0].ttft_ms(), *two.records[1].ttft_ms(), 0.02);  // 10 µs apart
  EXPECT_LT(*two.records[1].ttft_ms(), *one.records[1].ttft_ms());
}

TEST(VirtualRun, GenericApiAndUnboundedClosedLoopAreUsageErrors) {
  auto c = base_config();
  c.adapter.api = protocol::Api::generic;
  c.adapter.generic_template = R"({"p":"{{prompt}}"})";
  c.adapter.generic_stream_pointer = "/t";
  EXPECT_THROW(run_virtual(c, {instant()}, {}), Error);
  auto d = base_config();
  d.load.num_requests = 0;
  EXPECT_THROW(run_virtual(d, {instant()}, {}), Error);
  // Abandonment is a client timeout, not modelled: refused rather than reported as none.
  auto e = base_config();
  e.timeouts.abandon_after = std::chrono::seconds(1);
  try {
    run_virtual(e, {instant()}, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ExitCode::usage);
    EXPECT_NE(std::string(err.what()).find("--abandon-after"), std::string::npos) << err.what();
  }
}

TEST(VirtualRun, StopFlagEndsTheRunWithWhatFinished) {
  auto c = base_config();
  std::atomic<bool> stop{true};
  VirtualHooks hooks;
  hooks.stop = &stop;
  const auto r = run_virtual(c, {instant()}, hooks);
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(r.records.empty());
}

}  // namespace
}  // namespace sb::predict
