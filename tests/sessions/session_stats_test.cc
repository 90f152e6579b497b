// summary.json `sessions` (metrics/session_stats.h): sessions counted, completed only when
// every planned turn succeeded, durations from the first turn's t_sched to the last turn's
// end, and per turn index TTFT, input, the ideal and the server-reported cache hits.
#include "metrics/session_stats.h"

#include <vector>

#include <gtest/gtest.h>

#include "../metrics/test_records.h"
#include "metrics/run_summary.h"

namespace sb::metrics {
namespace {

using testing::make_record;
using testing::ms;

// A turn: sent at `sched` ms, first token `ttft` ms later, ended 100 ms after that.
RequestRecord turn(uint64_t id, int64_t session, int turn_index, int planned, double sched,
                   double ttft, int64_t input, int64_t history, int64_t cached,
                   ErrorClass ec = ErrorClass::ok) {
  RequestRecord r = make_record(id,
                                {.sched = sched,
                                 .send = sched,
                                 .first = sched + ttft,
                                 .last = sched + ttft + 100,
                                 .end = sched + ttft + 100},
                                8, ec);
  r.session_id = session;
  r.turn = turn_index;
  r.session_turns = planned;
  r.input_tokens = input;
  r.history_tokens = history;
  r.server.cached_tokens = cached;
  return r;
}

TEST(SessionStats, NoneWithoutSessionTurns) {
  const RequestRecord plain =
      make_record(0, {.sched = 0, .send = 0, .first = 5, .last = 9, .end = 9}, 4);
  EXPECT_FALSE(summarize_sessions({&plain}).has_value());
  EXPECT_FALSE(summarize_run({plain}, RunInfo{}).sessions.has_value());
}

TEST(SessionStats, CountsSessionsTurnsAndCacheGrowth) {
  const std::vector<RequestRecord> recs = {
      // Session 0: three turns, all ok: 0 .. 1400 ms.
      turn(0, 0, 0, 3, 0, 10, 100, 0, 0),
      turn(2, 0, 1, 3, 500, 20, 220, 110, 96),
      turn(4, 0, 2, 3, 1000, 300, 340, 230, 224),
      // Session 1: three turns planned, the second failed (no third was sent).
      turn(1, 1, 0, 3, 0, 30, 100, 0, -1),
      turn(3, 1, 1, 3, 600, 40, 220, 110, 0, ErrorClass::server_error),
      // Session 2: one turn, ok: 100 .. 250 ms.
      turn(5, 2, 0, 1, 100, 50, 60, 0, 0),
  };
  std::vector<const RequestRecord*> ptrs;
  for (const auto& r : recs) ptrs.push_back(&r);
  const auto s = summarize_sessions(ptrs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->sessions, 3);
  EXPECT_EQ(s->completed, 2);
  EXPECT_EQ(s->turns_ok, 5);
  EXPECT_EQ(s->turns_failed, 1);
  EXPECT_EQ(s->duration_s.count, 2);
  EXPECT_DOUBLE_EQ(s->duration_s.max, 1.4);
  EXPECT_DOUBLE_EQ(s->duration_s.min, 0.15);

  ASSERT_EQ(s->by_turn.size(), 3u);
  const TurnStats& t0 = s->by_turn[0];
  EXPECT_EQ(t0.requests, 3);
  EXPECT_EQ(t0.ok, 3);
  EXPECT_DOUBLE_EQ(t0.ttft_ms.p50, 30);
  EXPECT_EQ(t0.input_tokens_sum, 260);
  EXPECT_EQ(t0.history_tokens_sum, 0);
  EXPECT_EQ(t0.cached_reported, 2);  // session 1's server reported none
  EXPECT_EQ(t0.cached_tokens_sum, 0);
  ASSERT_TRUE(t0.ideal_hit_rate.has_value());
  EXPECT_DOUBLE_EQ(*t0.ideal_hit_rate, 0);

  const TurnStats& t1 = s->by_turn[1];
  EXPECT_EQ(t1.requests, 2);
  EXPECT_EQ(t1.ok, 1);  // the failed turn counts in requests only
  EXPECT_DOUBLE_EQ(t1.ttft_ms.p50, 20);
  EXPECT_EQ(t1.input_tokens_sum, 220);
  EXPECT_EQ(t1.history_tokens_sum, 110);
  EXPECT_EQ(t1.cached_tokens_sum, 96);
  EXPECT_DOUBLE_EQ(*t1.ideal_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(*t1.cached_hit_rate, 96.0 / 220);

  const TurnStats& t2 = s->by_turn[2];
  EXPECT_EQ(t2.requests, 1);
  EXPECT_DOUBLE_EQ(t2.ttft_ms.p50, 300);
  EXPECT_DOUBLE_EQ(*t2.ideal_hit_rate, 230.0 / 340);
  EXPECT_DOUBLE_EQ(*t2.cached_hit_rate, 224.0 / 340);
}

TEST(SessionStats, WarmupIsLeftOutOfTheRunSummary) {
  std::vector<RequestRecord> recs = {turn(0, 0, 0, 1, 0, 10, 100, 0, 0)};
  RequestRecord w = make_record(1, {.sched = 0, .send = 0, .first = 5, .last = 9, .end = 9}, 4);
  w.warmup = true;
  recs.push_back(w);
  const RunSummary s = summarize_run(recs, RunInfo{});
  ASSERT_TRUE(s.sessions.has_value());
  EXPECT_EQ(s.sessions->sessions, 1);
  EXPECT_EQ(s.sessions->completed, 1);
}

}  // namespace
}  // namespace sb::metrics
