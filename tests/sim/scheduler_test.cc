// The simulator's scheduler under a fake clock: exact model times, no I/O.
#include "sim/scheduler.h"

#include <gtest/gtest.h>

#include <map>

namespace sb::sim {
namespace {

using std::chrono::milliseconds;

TimePoint at_ms(double ms) {
  return TimePoint{} + from_ms(ms);
}
double ms_of(TimePoint t) {
  return to_ms(t.time_since_epoch());
}

// Round numbers: decode step 10 ms, prefill 0.1 ms/token (>= 10 ms), overhead 5 ms.
// The fused prefill of the original model (tgi's own is separate: tests below).
SimConfig test_config() {
  SimConfig c = preset_config("tgi");
  c.prefill_mode = PrefillMode::fused;
  c.decode_step_ms = 10;
  c.prefill_ms_per_token = 0.1;
  c.step_overhead_ms = 0;
  c.prefill_overhead_ms = 0;
  c.gpu_bandwidth_bytes_per_s = 1e18;  // KV reads free
  c.overhead_ms = 5;
  c.kv_capacity_tokens = 1'000'000;
  c.queue_limit = 0;
  c.max_batch_size = 8;
  return c;
}

struct Sim {
  explicit Sim(const SimConfig& c) : s(c) {}
  Admission submit(uint64_t id, double t_ms, int64_t prompt, int64_t n) {
    s.advance(at_ms(t_ms), ev);
    Admission a = s.submit({id, prompt, n, n}, at_ms(t_ms));
    s.advance(at_ms(t_ms), ev);
    return a;
  }
  void until(double t_ms) { s.advance(at_ms(t_ms), ev); }
  std::vector<double> tokens(uint64_t id) const {
    std::vector<double> out;
    for (const auto& e : ev)
      if (e.id == id && e.kind == SchedEvent::Kind::token) out.push_back(ms_of(e.time));
    return out;
  }
  double admitted(uint64_t id) const {
    for (const auto& e : ev)
      if (e.id == id && e.kind == SchedEvent::Kind::admitted) return ms_of(e.time);
    return -1;
  }
  Scheduler s;
  std::vector<SchedEvent> ev;
};

TEST(CostModel, DerivesLlama7bOnA10G) {
  CostModel m(preset_config("tgi"));
  EXPECT_NEAR(m.weights_bytes(), 13.48e9, 1e6);
  EXPECT_EQ(m.kv_bytes_per_token(), 524288.0);  // 2 x 32 layers x 4096 x 2 B
  // (23028 MiB - 13.48 GB - 2 GB) / 0.5 MiB
  EXPECT_NEAR(static_cast<double>(m.kv_capacity_tokens()), 16530, 2);
  // decode step at batch 1, no KV (tgi-1.x: 73.5% of 600 GB/s, no step overhead):
  // 13.48e9 / (600e9 x 0.735) = 30.57 ms
  EXPECT_NEAR(to_ms(m.decode_step(1, 0)), 30.567, 0.01);
  // prefill of 1000 tokens: 4 ms + 2 x 6.74e9 x 1000 / (70e12 x 0.70) = 279.1 ms
  EXPECT_NEAR(to_ms(m.prefill(1000)), 279.10, 0.01);
}

TEST(CostModel, TimeScaleMultipliesDurations) {
  SimConfig c = preset_config("tgi");
  c.time_scale = 0.1;
  CostModel fast(c);
  CostModel real(preset_config("tgi"));
  EXPECT_NEAR(to_ms(fast.decode_step(4, 100)), to_ms(real.decode_step(4, 100)) / 10, 1e-3);
  EXPECT_NEAR(to_ms(fast.prefill(100)), to_ms(real.prefill(100)) / 10, 1e-3);
}

TEST(Scheduler, LoneRequestTakesOverheadPrefillAndNSteps) {
  for (BatchPolicy p : {BatchPolicy::none, BatchPolicy::continuous}) {
    SimConfig c = test_config();
    c.batching = p;
    Sim r(c);
    ASSERT_EQ(r.submit(1, 0, 200, 5), Admission::accepted);
    r.until(1000);
    EXPECT_EQ(r.admitted(1), 5.0);  // after the overhead
    // prefill(200) = 20 ms; each step 10 ms: 5 + 20 + 10, then every 10 ms
    EXPECT_EQ(r.tokens(1), (std::vector<double>{35, 45, 55, 65, 75}));
    EXPECT_FALSE(r.s.next_event().has_value());
    EXPECT_EQ(r.s.stats().kv_used_tokens, 0);
  }
}

TEST(Scheduler, EventsAreNotEmittedBeforeTheirTime) {
  Sim r(test_config());
  r.submit(1, 0, 200, 5);
  r.until(50);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{35, 45}));
  EXPECT_EQ(ms_of(*r.s.next_event()), 55.0);
}

TEST(Scheduler, ContinuousAdmitsAtTheNextStepStaticWaits) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.batch_window_ms = 0;
  // A: 0 ms, prefill 10 ms: tokens at 20, 30, ..., 110. B arrives at 22 ms.
  c.batching = BatchPolicy::continuous;
  Sim cont(c);
  cont.submit(1, 0, 100, 10);
  cont.submit(2, 22, 100, 3);
  cont.until(1000);
  EXPECT_EQ(cont.admitted(2), 30.0);  // the step boundary after 22 ms
  // That step prefills B (10 ms) and decodes both (10 ms): A's next token comes 20 ms later.
  EXPECT_EQ(cont.tokens(2), (std::vector<double>{50, 60, 70}));
  EXPECT_EQ(cont.tokens(1)[2], 50.0);

  c.batching = BatchPolicy::static_batch;
  Sim stat(c);
  stat.submit(1, 0, 100, 10);
  stat.submit(2, 22, 100, 3);
  stat.until(1000);
  EXPECT_EQ(stat.tokens(1).back(), 110.0);
  EXPECT_EQ(stat.admitted(2), 110.0);  // waits for the whole batch to finish
  EXPECT_EQ(stat.tokens(2), (std::vector<double>{130, 140, 150}));
}

TEST(Scheduler, StaticBatchFormsWhenFullOrAfterTheWindow) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.batching = BatchPolicy::static_batch;
  c.max_batch_size = 2;
  c.batch_window_ms = 50;
  Sim one(c);
  one.submit(1, 0, 100, 2);
  one.until(1000);
  EXPECT_EQ(one.admitted(1), 50.0);  // alone: waits the window
  Sim two(c);
  two.submit(1, 0, 100, 2);
  two.submit(2, 7, 100, 2);
  two.until(1000);
  EXPECT_EQ(two.admitted(1), 7.0);  // full batch: starts at once
  EXPECT_EQ(two.admitted(2), 7.0);
  // prefill(200 tokens) = 20 ms + step 10 ms
  EXPECT_EQ(two.tokens(1), (std::vector<double>{37, 47}));
}

TEST(Scheduler, NoneRunsOneAtATime) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.batching = BatchPolicy::none;
  Sim r(c);
  r.submit(1, 0, 100, 3);
  r.submit(2, 0, 100, 3);
  r.until(1000);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{20, 30, 40}));
  EXPECT_EQ(r.admitted(2), 40.0);
  EXPECT_EQ(r.tokens(2), (std::vector<double>{60, 70, 80}));
}

TEST(Scheduler, SerialLockSerialisesTheOverhead) {
  SimConfig c = test_config();
  c.batching = BatchPolicy::none;
  c.overhead_ms = 5;
  Sim parallel(c);
  parallel.submit(1, 0, 100, 1);
  parallel.submit(2, 0, 100, 1);
  parallel.until(1000);
  // Overheads overlap: A 5 + 20 = 25; B admitted at 25, done at 45.
  EXPECT_EQ(parallel.tokens(2), (std::vector<double>{45}));
  c.serial_lock = true;
  Sim serial(c);
  serial.submit(1, 0, 100, 1);
  serial.submit(2, 0, 100, 1);
  serial.until(1000);
  // Lone request still overhead + prefill + step; B's overhead waits for the lock.
  EXPECT_EQ(serial.tokens(1), (std::vector<double>{25}));
  EXPECT_EQ(serial.tokens(2), (std::vector<double>{50}));
}

TEST(Scheduler, KvCapacityRejectsOrQueues) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.kv_capacity_tokens = 1000;
  c.kv_full = KvFullAction::reject;
  Sim rej(c);
  EXPECT_EQ(rej.submit(1, 0, 500, 100), Admission::accepted);
  EXPECT_EQ(rej.submit(2, 1, 500, 100), Admission::kv_full);   // 600 + 600 > 1000
  EXPECT_EQ(rej.submit(3, 1, 300, 100), Admission::accepted);  // 600 + 400 fits
  EXPECT_EQ(rej.submit(4, 1, 1000, 1), Admission::kv_full);    // never fits

  c.kv_full = KvFullAction::queue;
  Sim q(c);
  EXPECT_EQ(q.submit(1, 0, 500, 2), Admission::accepted);
  EXPECT_EQ(q.submit(2, 1, 500, 2), Admission::accepted);
  EXPECT_EQ(q.submit(3, 1, 1000, 1), Admission::kv_full);
  q.until(1000);
  // A: prefill 50 ms + step: tokens at 60, 70; B admitted when A frees its KV.
  EXPECT_EQ(q.tokens(1), (std::vector<double>{60, 70}));
  EXPECT_EQ(q.admitted(2), 70.0);
}

TEST(Scheduler, QueueLimitRejects) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.batching = BatchPolicy::none;
  c.queue_limit = 2;
  Sim r(c);
  EXPECT_EQ(r.submit(1, 0, 100, 5), Admission::accepted);  // runs
  EXPECT_EQ(r.submit(2, 0, 100, 5), Admission::accepted);  // waits
  EXPECT_EQ(r.submit(3, 0, 100, 5), Admission::accepted);  // waits
  EXPECT_EQ(r.submit(4, 0, 100, 5), Admission::queue_full);
  EXPECT_EQ(r.s.stats().waiting, 2);
  EXPECT_EQ(r.s.stats().running, 1);
}

TEST(Scheduler, CancelFreesTheSlot) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  c.batching = BatchPolicy::none;
  Sim r(c);
  r.submit(1, 0, 100, 100);
  r.submit(2, 0, 100, 1);
  r.until(25);
  r.s.cancel(1);
  r.until(1000);
  EXPECT_EQ(r.tokens(1).size(), 1u);  // the token at 20 ms only
  EXPECT_EQ(r.admitted(2), 30.0);     // the cancelled request leaves at its step's end
}

// Closed loop at concurrency C: every request is resubmitted when it finishes.
double closed_loop_tokens_per_s(const SimConfig& c, int conc, int64_t prompt, int64_t n,
                                double horizon_ms) {
  Scheduler s(c);
  std::vector<SchedEvent> ev;
  uint64_t next_id = 1;
  for (int i = 0; i < conc; ++i) s.submit({next_id++, prompt, n, n}, at_ms(0));
  int64_t tokens = 0;
  for (;;) {
    auto t = s.next_event();
    if (!t || ms_of(*t) > horizon_ms) break;
    ev.clear();
    s.advance(*t, ev);
    for (const auto& e : ev) {
      if (e.kind != SchedEvent::Kind::token) continue;
      ++tokens;
      if (e.last) s.submit({next_id++, prompt, n, n}, e.time);
    }
    ev.clear();
    s.advance(*t, ev);
  }
  return static_cast<double>(tokens) / (horizon_ms / 1e3);
}

TEST(Scheduler, ThroughputAtConcurrencyFollowsTheCostModel) {
  SimConfig c = test_config();
  c.overhead_ms = 0;
  const int64_t p = 100, n = 20;
  for (int conc : {1, 4, 8}) {
    c.batching = BatchPolicy::continuous;
    // All C requests are admitted together: cycle = prefill(C x p) + n steps.
    CostModel m(c);
    double cycle_s = to_s(m.prefill(conc * p)) + n * to_s(m.decode_step(conc, 0));
    double expected = conc * n / cycle_s;
    double got = closed_loop_tokens_per_s(c, conc, p, n, 60'000);
    EXPECT_NEAR(got / expected, 1.0, 0.01) << "continuous, C=" << conc;
    c.batching = BatchPolicy::none;
    double lone = n / (to_s(m.prefill(p)) + n * to_s(m.decode_step(1, 0)));
    EXPECT_NEAR(closed_loop_tokens_per_s(c, conc, p, n, 60'000) / lone, 1.0, 0.01)
        << "none, C=" << conc;
  }
}

TEST(Scheduler, KvReadsSlowDecodeSteps) {
  SimConfig c = preset_config("tgi");
  CostModel m(c);
  EXPECT_GT(m.decode_step(1, 10000), m.decode_step(1, 0));
  // 10k tokens x 0.5 MiB / 441 GB/s (73.5% of 600) = 11.9 ms
  EXPECT_NEAR(to_ms(m.decode_step(1, 10000) - m.decode_step(1, 0)), 11.89, 0.01);
}

}  // namespace
}  // namespace sb::sim
