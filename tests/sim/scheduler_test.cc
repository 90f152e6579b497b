// The simulator's scheduler under a fake clock: exact model times, no I/O.
#include "sim/scheduler.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/prefix_cache.h"

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
  c.sched.prefill_mode = PrefillMode::fused;
  c.cost.decode_step_ms = 10;
  c.cost.prefill_ms_per_token = 0.1;
  c.cost.step_overhead_ms = 0;
  c.cost.prefill_overhead_ms = 0;
  c.gpu.bandwidth_bytes_per_s = 1e18;  // KV reads free
  c.sched.overhead_ms = 5;
  c.cost.kv_capacity_tokens = 1'000'000;
  c.sched.queue_limit = 0;
  c.sched.max_batch_size = 8;
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
  // An encoder pass (embeddings, rerank): one result at the end of its prompt's step.
  Admission encode(uint64_t id, double t_ms, int64_t prompt) {
    s.advance(at_ms(t_ms), ev);
    SchedRequest r{id, prompt, 0, 1};
    r.encode_only = true;
    Admission a = s.submit(r, at_ms(t_ms));
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
  // decode step at batch 1, no KV (tgi-1.x: 73.5% of 600 GB/s, no step overhead), every
  // weight but the input embedding (32000 x 4096): 13.22e9 / (600e9 x 0.735) = 29.97 ms
  EXPECT_NEAR(to_ms(m.decode_step(1, 0)), 29.972, 0.01);
  // prefill of 1000 tokens: 4 ms + 2 x (6.74e9 - 2 x 0.131e9) x 1000 / (70e12 x 0.70)
  // = 268.4 ms, and the attention of its 500,500 causal pairs: 4 x 32 x 4096 x 500,500 /
  // (70e12 x 0.70) = 5.36 ms
  EXPECT_NEAR(to_ms(m.prefill(1000, 0)), 268.40, 0.01);
  EXPECT_NEAR(to_ms(m.prefill(1000, prefill_attention_pairs(0, 1000))), 273.76, 0.01);
}

TEST(CostModel, TimeScaleMultipliesDurations) {
  SimConfig c = preset_config("tgi");
  c.server.time_scale = 0.1;
  CostModel fast(c);
  CostModel real(preset_config("tgi"));
  EXPECT_NEAR(to_ms(fast.decode_step(4, 100)), to_ms(real.decode_step(4, 100)) / 10, 1e-3);
  EXPECT_NEAR(to_ms(fast.prefill(100, 0)), to_ms(real.prefill(100, 0)) / 10, 1e-3);
}

TEST(Scheduler, LoneRequestTakesOverheadPrefillAndNSteps) {
  for (BatchPolicy p : {BatchPolicy::none, BatchPolicy::continuous}) {
    SimConfig c = test_config();
    c.sched.batching = p;
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
  c.sched.overhead_ms = 0;
  c.sched.batch_window_ms = 0;
  // A: 0 ms, prefill 10 ms: tokens at 20, 30, ..., 110. B arrives at 22 ms.
  c.sched.batching = BatchPolicy::continuous;
  Sim cont(c);
  cont.submit(1, 0, 100, 10);
  cont.submit(2, 22, 100, 3);
  cont.until(1000);
  EXPECT_EQ(cont.admitted(2), 30.0);  // the step boundary after 22 ms
  // That step prefills B (10 ms) and decodes both (10 ms): A's next token comes 20 ms later.
  EXPECT_EQ(cont.tokens(2), (std::vector<double>{50, 60, 70}));
  EXPECT_EQ(cont.tokens(1)[2], 50.0);

  c.sched.batching = BatchPolicy::static_batch;
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
  c.sched.overhead_ms = 0;
  c.sched.batching = BatchPolicy::static_batch;
  c.sched.max_batch_size = 2;
  c.sched.batch_window_ms = 50;
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
  c.sched.overhead_ms = 0;
  c.sched.batching = BatchPolicy::none;
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
  c.sched.batching = BatchPolicy::none;
  c.sched.overhead_ms = 5;
  Sim parallel(c);
  parallel.submit(1, 0, 100, 1);
  parallel.submit(2, 0, 100, 1);
  parallel.until(1000);
  // Overheads overlap: A 5 + 20 = 25; B admitted at 25, done at 45.
  EXPECT_EQ(parallel.tokens(2), (std::vector<double>{45}));
  c.sched.serial_lock = true;
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
  c.sched.overhead_ms = 0;
  c.cost.kv_capacity_tokens = 1000;
  c.sched.kv_full = KvFullAction::reject;
  Sim rej(c);
  EXPECT_EQ(rej.submit(1, 0, 500, 100), Admission::accepted);
  EXPECT_EQ(rej.submit(2, 1, 500, 100), Admission::kv_full);   // 600 + 600 > 1000
  EXPECT_EQ(rej.submit(3, 1, 300, 100), Admission::accepted);  // 600 + 400 fits
  EXPECT_EQ(rej.submit(4, 1, 1000, 1), Admission::kv_full);    // never fits

  c.sched.kv_full = KvFullAction::queue;
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
  c.sched.overhead_ms = 0;
  c.sched.batching = BatchPolicy::none;
  c.sched.queue_limit = 2;
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
  c.sched.overhead_ms = 0;
  c.sched.batching = BatchPolicy::none;
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
  c.sched.overhead_ms = 0;
  const int64_t p = 100, n = 20;
  for (int conc : {1, 4, 8}) {
    c.sched.batching = BatchPolicy::continuous;
    // All C requests are admitted together: cycle = prefill(C x p) + n steps.
    CostModel m(c);
    double cycle_s = to_s(m.prefill(conc * p, 0)) + n * to_s(m.decode_step(conc, 0));
    double expected = conc * n / cycle_s;
    double got = closed_loop_tokens_per_s(c, conc, p, n, 60'000);
    EXPECT_NEAR(got / expected, 1.0, 0.01) << "continuous, C=" << conc;
    c.sched.batching = BatchPolicy::none;
    double lone = n / (to_s(m.prefill(p, 0)) + n * to_s(m.decode_step(1, 0)));
    EXPECT_NEAR(closed_loop_tokens_per_s(c, conc, p, n, 60'000) / lone, 1.0, 0.01)
        << "none, C=" << conc;
  }
}

// TGI 1.x (prefill_mode separate) with the round numbers of test_config: decode 10 ms,
// prefill max(10 ms, 0.1 ms x tokens).
SimConfig tgi_config() {
  SimConfig c = test_config();
  c.sched.prefill_mode = PrefillMode::separate;
  c.sched.overhead_ms = 0;
  c.sched.max_waiting_tokens = 20;
  c.sched.waiting_served_ratio = 1.2;
  c.sched.max_batch_prefill_tokens = 4096;
  c.sched.max_batch_total_tokens = 0;
  c.sched.max_batch_size = 32;
  return c;
}

TEST(SchedulerTgi, PrefillInterruptsTheRunningBatch) {
  Sim r(tgi_config());
  r.submit(1, 0, 300, 8);  // prefill 30 ms: its first token at 30, then every 10 ms
  r.submit(2, 42, 300, 2);
  r.until(1000);
  // A's tokens at 30, 40, 50; at 50 B (waiting, 1 >= floor(1 x 1.2)) is prefilled alone,
  // 50..80, B's first token at 80; A gets nothing during it: its next token comes at 90.
  EXPECT_EQ(r.admitted(2), 50.0);
  EXPECT_EQ(r.tokens(2), (std::vector<double>{80, 90}));
  std::vector<double> a = r.tokens(1);
  EXPECT_EQ(a, (std::vector<double>{30, 40, 50, 90, 100, 110, 120, 130}));
  EXPECT_EQ(a[3] - a[2], 10.0 + 30.0);  // decode step + B's prefill
}

TEST(SchedulerTgi, LoneRequestGetsItsFirstTokenFromThePrefill) {
  Sim r(tgi_config());
  r.submit(1, 0, 300, 3);
  r.until(1000);
  EXPECT_EQ(r.admitted(1), 0.0);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{30, 40, 50}));  // prefill + 2 decode steps
}

// Five running, one newcomer: floor(5 x 1.2) = 6 must wait before the router stops decoding,
// unless max_waiting_tokens decode steps passed since the last prefill.
TEST(SchedulerTgi, WaitingServedRatioHoldsNewcomersBack) {
  auto admitted_at = [](double ratio, int newcomers) {
    SimConfig c = tgi_config();
    c.sched.waiting_served_ratio = ratio;
    c.sched.max_waiting_tokens = 4;
    Sim r(c);
    for (uint64_t id = 1; id <= 5; ++id) r.s.submit({id, 100, 50, 50}, at_ms(0));
    r.until(0);  // one prefill of 500 tokens, 0..50 ms; decode steps end at 60, 70, 80, ...
    for (int k = 0; k < newcomers; ++k) r.submit(100 + k, 55, 100, 5);
    r.until(2000);
    return r.admitted(100);
  };
  EXPECT_EQ(admitted_at(1.2, 1), 80.0);  // 1 < 6: after 3 decode steps (waiting_tokens 4)
  EXPECT_EQ(admitted_at(1.2, 6), 60.0);  // 6 >= 6: at the first step boundary
  EXPECT_EQ(admitted_at(0.0, 1), 60.0);  // ratio 0: always
}

TEST(SchedulerTgi, PrefillTokenBudgetSplitsThePrefill) {
  SimConfig c = tgi_config();
  c.sched.overhead_ms = 5;  // all three become ready together at 5 ms
  c.sched.waiting_served_ratio = 0;
  c.sched.max_batch_prefill_tokens = 256;  // 100-token prompts pad to 112: two fit, three do not
  Sim r(c);
  for (uint64_t id = 1; id <= 3; ++id) r.submit(id, 0, 100, 3);
  r.until(1000);
  EXPECT_EQ(r.admitted(1), 5.0);
  EXPECT_EQ(r.admitted(2), 5.0);
  EXPECT_EQ(r.admitted(3), 25.0);  // the next decision, after the first prefill (20 ms)
  EXPECT_EQ(r.tokens(3).front(), 35.0);
}

TEST(SchedulerTgi, TotalTokenBudgetWaitsForRoom) {
  SimConfig c = tgi_config();
  c.sched.waiting_served_ratio = 0;
  c.sched.max_batch_total_tokens = 300;  // 112 + 16 = 128 per request: two fit
  Sim r(c);
  r.submit(1, 0, 100, 3);
  r.submit(2, 0, 100, 3);
  r.submit(3, 0, 100, 3);
  r.until(1000);
  const double end1 = r.tokens(1).back();
  EXPECT_LT(r.admitted(2), end1);
  EXPECT_EQ(r.admitted(3), end1);  // admitted once request 1 left the batch
}

// vLLM chunked prefill: budget 64 tokens a step, decode tokens first.
TEST(SchedulerChunked, DecodeFirstThenPromptChunksFillTheBudget) {
  SimConfig c = test_config();
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.overhead_ms = 0;
  c.sched.max_num_batched_tokens = 64;
  Sim r(c);
  r.submit(1, 0, 100, 6);  // chunks 64 + 36: first token at 20
  r.submit(2, 15, 100, 3);
  r.until(1000);
  // B: 63 tokens beside A's decode token at 20..30, the remaining 37 at 30..40.
  EXPECT_EQ(r.admitted(2), 20.0);
  EXPECT_EQ(r.tokens(2), (std::vector<double>{40, 50, 60}));
  // A is never paused: a token every step (10 ms: 64 tokens x 0.1 ms < the weight read).
  EXPECT_EQ(r.tokens(1), (std::vector<double>{20, 30, 40, 50, 60, 70}));
  EXPECT_EQ(r.s.stats().prefill_tokens, 200);
}

TEST(SchedulerChunked, ComputeBoundChunksCostTheirTokens) {
  SimConfig c = test_config();
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.overhead_ms = 0;
  c.cost.prefill_ms_per_token = 1;  // 1 ms a token: a 64-token step takes 64 ms
  c.sched.max_num_batched_tokens = 64;
  Sim r(c);
  r.submit(1, 0, 100, 2);
  r.until(1000);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{64 + 36, 64 + 36 + 10}));
}

// Paged KV: 4 blocks of 16 tokens; two requests that each grow to 4 blocks cannot both run.
TEST(SchedulerPaged, PreemptionByRecomputeLosesNoRequest) {
  for (PrefillMode mode : {PrefillMode::chunked, PrefillMode::fused}) {
    SimConfig c = test_config();
    c.sched.prefill_mode = mode;
    c.sched.kv_allocation = KvAllocation::paged;
    c.sched.kv_block_tokens = 16;
    c.cost.kv_capacity_tokens = 64;
    c.sched.overhead_ms = 0;
    Sim r(c);
    for (uint64_t id = 1; id <= 3; ++id) ASSERT_EQ(r.submit(id, 0, 16, 40), Admission::accepted);
    r.until(100'000);
    for (uint64_t id = 1; id <= 3; ++id) {
      std::vector<int64_t> idx;
      int lasts = 0;
      for (const auto& e : r.ev)
        if (e.id == id && e.kind == SchedEvent::Kind::token) {
          idx.push_back(e.index);
          lasts += e.last;
        }
      ASSERT_EQ(idx.size(), 40u) << "request " << id;
      for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(idx[i], static_cast<int64_t>(i) + 1);
      EXPECT_EQ(lasts, 1);
    }
    const SchedStats st = r.s.stats();
    EXPECT_GT(st.preemptions, 0);
    EXPECT_GT(st.prefill_tokens, 3 * 16);  // the preempted redid prompt + generated tokens
    EXPECT_EQ(st.kv_used_tokens, 0);
    EXPECT_EQ(st.running + st.waiting, 0);
    EXPECT_FALSE(r.s.next_event().has_value());
  }
}

TEST(SchedulerPaged, NeverFittingRequestIsRefused) {
  SimConfig c = test_config();
  c.sched.prefill_mode = PrefillMode::chunked;
  c.sched.kv_allocation = KvAllocation::paged;
  c.cost.kv_capacity_tokens = 64;
  Sim r(c);
  EXPECT_EQ(r.submit(1, 0, 60, 10), Admission::kv_full);  // 70 tokens > 4 blocks
}

TEST(SchedulerPrefix, CacheHitSkipsThePrefillOfCachedBlocks) {
  SimConfig c = test_config();
  c.sched.overhead_ms = 0;
  c.cost.prefill_ms_per_token = 1;  // prefill(T) = T ms above 10 ms
  c.sched.prefix_caching = true;
  const std::string shared(64 * 4, 'a');  // 4 blocks of 16 tokens x 4 bytes
  auto request = [&](uint64_t id, const std::string& text) {
    SchedRequest q{id, 100, 1, 1};
    q.prefix_blocks = block_hashes(text, 16 * 4, 100 / 16);
    return q;
  };
  Sim r(c);
  auto send = [&](const SchedRequest& q, double t) {
    r.until(t);
    r.s.submit(q, at_ms(t));
    r.until(t);
  };
  send(request(1, shared + std::string(200, 'x')), 0);    // miss: prefill 100 + step 10
  send(request(2, shared + std::string(200, 'y')), 200);  // 4 blocks hit: prefill 36
  send(request(3, std::string(400, 'z')), 400);           // another prefix: miss
  r.until(1000);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{110}));
  EXPECT_EQ(r.tokens(2), (std::vector<double>{200 + 36 + 10}));
  EXPECT_EQ(r.tokens(3), (std::vector<double>{400 + 100 + 10}));
  EXPECT_EQ(r.s.stats().prefix_hit_tokens, 64);
  // Each request's admitted event says what the cache served it (llama.cpp's cache_n).
  std::vector<int64_t> cached;
  for (const SchedEvent& e : r.ev)
    if (e.kind == SchedEvent::Kind::admitted) cached.push_back(e.cached_tokens);
  EXPECT_EQ(cached, (std::vector<int64_t>{0, 64, 0}));
}

TEST(SchedulerPrefix, OffByDefaultForTgi) {
  EXPECT_FALSE(preset_config("tgi").sched.prefix_caching);
  EXPECT_EQ(preset_config("tgi").sched.prefill_mode, PrefillMode::separate);
}

TEST(PrefixCache, EvictsLeastRecentlyUsedBlocks) {
  PrefixCache cache(4);
  const std::vector<uint64_t> a{1, 2, 3}, b{7, 8};
  cache.insert(a, 3);
  EXPECT_EQ(cache.match(a), 3);
  cache.insert(b, 2);  // 5 > 4: a's last block goes
  EXPECT_EQ(cache.size_blocks(), 4);
  EXPECT_EQ(cache.match(a), 2);
  EXPECT_EQ(cache.match(b), 2);
  EXPECT_EQ(block_hashes("abcdefgh", 4, 10).size(), 2u);
  EXPECT_EQ(block_hashes("abcdefgh", 4, 1).size(), 1u);
  EXPECT_EQ(block_hashes("abcdXXXX", 4, 10)[0], block_hashes("abcdefgh", 4, 10)[0]);
  EXPECT_NE(block_hashes("abcdXXXX", 4, 10)[1], block_hashes("abcdefgh", 4, 10)[1]);
}

TEST(PrefixCache, PromptPrefixBlocksOfABody) {
  SimConfig c = preset_config("tgi");
  const std::string a =
      R"({"inputs":")" + std::string(300, 'p') + "A" + std::string(20, 'q') + R"("})";
  const std::string b =
      R"({"inputs":")" + std::string(300, 'p') + "B" + std::string(20, 'q') + R"("})";
  EXPECT_TRUE(prompt_prefix_blocks(c, a, 76).empty());  // off for tgi-1.x
  c.sched.prefix_caching = true;
  const auto ha = prompt_prefix_blocks(c, a, 76), hb = prompt_prefix_blocks(c, b, 76);
  ASSERT_EQ(ha.size(), 4u);  // 76 tokens / 16; 64-byte blocks of the body
  EXPECT_EQ(ha, hb);         // the first 256 bytes are equal
  const auto la = prompt_prefix_blocks(c, a, 100), lb = prompt_prefix_blocks(c, b, 100);
  ASSERT_EQ(la.size(), 5u);  // the body's 334 bytes hold 5 full blocks (6 allowed)
  EXPECT_EQ(la[3], lb[3]);
  EXPECT_NE(la[4], lb[4]);  // 'A' and 'B' are in the fifth block
}

// The wrapper presets: both run one request at a time; fastapi's per-request overhead holds the
// lock (no overlap with another generation) and its API server adds 4.3 ms to every token.
TEST(SchedulerWrappers, FastapiAndPytorchDiffer) {
  auto second_request = [](const char* preset) {
    Sim r(preset_config(preset));
    r.submit(1, 0, 20, 5);
    r.submit(2, 0, 20, 5);
    r.until(100'000);
    return std::make_pair(r.tokens(1), r.tokens(2));
  };
  const auto [pt1, pt2] = second_request("pytorch");
  const auto [fa1, fa2] = second_request("fastapi");
  const SimConfig p = preset_config("pytorch"), f = preset_config("fastapi");
  // Token gap: the step overheads differ by the API server's 4.3 ms.
  EXPECT_NEAR((fa1[2] - fa1[1]) - (pt1[2] - pt1[1]), 4.3, 1e-3);
  // After the first ends, pytorch's second request has done its overhead in parallel;
  // fastapi's does it then, under the lock.
  const double prefill_and_step_p = pt2[0] - pt1.back();
  const double prefill_and_step_f = fa2[0] - fa1.back();
  EXPECT_NEAR(prefill_and_step_f - prefill_and_step_p, f.sched.overhead_ms + 4.3, 1e-3);
  EXPECT_GT(f.sched.overhead_ms, p.sched.overhead_ms);
  // A short request's end-to-end time: fastapi's is the longest.
  EXPECT_GT(fa1.back(), pt1.back() + (f.sched.overhead_ms - p.sched.overhead_ms));
}

TEST(Scheduler, InstantPresetKeepsOneMillisecondSteps) {
  SimConfig c = preset_config("instant");
  EXPECT_EQ(c.sched.prefill_mode, PrefillMode::fused);
  Sim r(c);
  r.submit(1, 0, 10, 3);
  r.until(100);
  EXPECT_EQ(r.tokens(1), (std::vector<double>{2, 3, 4}));  // prefill floor 1 ms + 1 ms steps
}

TEST(Scheduler, KvReadsSlowDecodeSteps) {
  SimConfig c = preset_config("tgi");
  CostModel m(c);
  EXPECT_GT(m.decode_step(1, 10000), m.decode_step(1, 0));
  // 10k tokens x 0.5 MiB / 441 GB/s (73.5% of 600) = 11.9 ms
  EXPECT_NEAR(to_ms(m.decode_step(1, 10000) - m.decode_step(1, 0)), 11.89, 0.01);
}

// Encoder passes: prefill only, batched like prompts; in the fused mode a step of passes
// alone has no decode step, and passes in a step with generations add only their prefill.
TEST(SchedulerEncoder, APassEndsWithItsPrefillAndNoDecodeStep) {
  Sim r(test_config());
  ASSERT_EQ(r.encode(1, 0, 1000), Admission::accepted);
  r.until(1000);
  EXPECT_EQ(r.admitted(1), 5.0);
  EXPECT_EQ(r.tokens(1), std::vector<double>{5 + 100});  // prefill(1000) = 100 ms, no +10
  EXPECT_FALSE(r.s.next_event().has_value());
  EXPECT_EQ(r.s.stats().kv_used_tokens, 0);
  EXPECT_EQ(r.s.stats().running, 0);
}

TEST(SchedulerEncoder, BatchedPassesShareOneForward) {
  // Four 50-token passes: one fused forward of 200 tokens (max(10 ms weight read, 20 ms)) ends
  // them all at 25; one at a time each would pay the 10 ms weight read: 15, 25, 35, 45.
  Sim batched(test_config());
  for (uint64_t id = 1; id <= 4; ++id) batched.encode(id, 0, 50);
  batched.until(1000);
  for (uint64_t id = 1; id <= 4; ++id) EXPECT_EQ(batched.tokens(id), std::vector<double>{25});
  SimConfig one = test_config();
  one.sched.batching = BatchPolicy::none;
  Sim serial(one);
  for (uint64_t id = 1; id <= 4; ++id) serial.encode(id, 0, 50);
  serial.until(1000);
  for (uint64_t id = 1; id <= 4; ++id)
    EXPECT_EQ(serial.tokens(id), std::vector<double>{5.0 + 10.0 * static_cast<double>(id)});
}

TEST(SchedulerEncoder, APassBesideAGenerationAddsOnlyItsPrefill) {
  SimConfig c = test_config();
  c.sched.overhead_ms = 0;
  Sim r(c);
  r.submit(1, 0, 200, 4);  // prefill 20 + step 10: tokens at 30, 40, 50, 60
  r.encode(2, 35, 300);    // joins the step at 40: prefill(300) = 30 + the decode step 10
  r.until(1000);
  EXPECT_EQ(r.tokens(2), std::vector<double>{80});
  EXPECT_EQ(r.tokens(1), (std::vector<double>{30, 40, 80, 90}));
}

}  // namespace
}  // namespace sb::sim
