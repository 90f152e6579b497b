// The engine's socket-free timing rules on the clock seam (engine/phase_clock.h), driven by a
// ManualTimeSource: the grace period after a phase stops, and the open-loop share's intended
// send times.
#include "engine/phase_clock.h"

#include <gtest/gtest.h>

#include <set>

#include "common/manual_time_source.h"
#include "engine/load_phases.h"

namespace sb::engine {
namespace {

using namespace std::chrono_literals;

TEST(PhaseStopper, CancelsInFlightOneGracePeriodAfterStopAt) {
  ManualTimeSource clock;
  const TimePoint start = clock.now();
  PhaseStopper stopper(start + 10s, 2s);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));
  clock.advance(10s - 1ns);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));
  EXPECT_FALSE(stopper.cancel_at());  // not stopping yet
  clock.advance(1ns + 250ms);         // the first poll after stop_at (polls are 250 ms apart)
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));
  EXPECT_EQ(stopper.cancel_at(), start + 10s + 250ms + 2s);  // grace counts from that poll
  clock.advance(2s - 1ns);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));
  clock.advance(1ns);
  EXPECT_TRUE(stopper.cancel_now(clock.now(), false));
  EXPECT_TRUE(stopper.cancelled());
  clock.advance(1s);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));  // once
}

TEST(PhaseStopper, AnInterruptStartsTheGracePeriodAtOnce) {
  ManualTimeSource clock;
  const TimePoint start = clock.now();
  PhaseStopper stopper(TimePoint::max(), 30s);  // bounded by count only
  clock.advance(5s);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), false));
  EXPECT_FALSE(stopper.cancel_now(clock.now(), true));  // Ctrl-C at 5 s
  EXPECT_EQ(stopper.cancel_at(), start + 35s);
  clock.advance(29s);
  EXPECT_FALSE(stopper.cancel_now(clock.now(), true));
  clock.advance(1s);
  EXPECT_TRUE(stopper.cancel_now(clock.now(), true));
}

TEST(PhaseStopper, ZeroGraceCancelsAtTheStoppingPoll) {
  ManualTimeSource clock;
  PhaseStopper stopper(clock.now() + 1s, Nanos::zero());
  clock.advance(1s);
  EXPECT_TRUE(stopper.cancel_now(clock.now(), false));
}

// The measured phase's schedule (load_phases) split over 3 workers x 2 shards: every entry
// sent once, by the right worker, at exactly start + offset on the phase's clock, in order.
TEST(OpenLoopShare, IntendedSendTimesAreThePhaseStartPlusTheScheduleOffsets) {
  LoadConfig load;
  load.mode = LoadMode::open;
  load.request_rate = 50;
  load.num_requests = 100;
  load.seed = 7;
  const std::vector<Nanos> schedule = measured_schedule(load);
  ASSERT_EQ(schedule.size(), 100u);
  ManualTimeSource clock;
  const TimePoint start = clock.now() + 5ms;  // as run_measured: a little ahead
  std::set<uint64_t> ids;
  for (int shard = 0; shard < 2; ++shard)
    for (int worker = 0; worker < 3; ++worker) {
      OpenLoopShare share({.schedule = &schedule,
                           .start = start,
                           .first_index = 10,
                           .worker = worker,
                           .workers = 3,
                           .shard = shard,
                           .shards = 2});
      TimePoint last = TimePoint::min();
      while (const auto s = share.next()) {
        EXPECT_EQ(s->k % 2, static_cast<uint64_t>(shard));
        EXPECT_EQ((s->k / 2) % 3, static_cast<uint64_t>(worker));
        EXPECT_EQ(s->id, 10 + s->k);
        EXPECT_EQ(s->t_sched, start + schedule[s->k]);
        EXPECT_GE(s->t_sched, last);
        last = s->t_sched;
        EXPECT_TRUE(ids.insert(s->id).second);
      }
    }
  EXPECT_EQ(ids.size(), 100u);
}

TEST(OpenLoopShare, StopsAtStopAtAndAtTheEndIndex) {
  const std::vector<Nanos> schedule = {0ms, 100ms, 200ms, 300ms, 400ms};
  ManualTimeSource clock;
  const TimePoint start = clock.now();
  OpenLoopShare by_time({.schedule = &schedule, .start = start, .stop_at = start + 300ms});
  int n = 0;
  while (by_time.next()) ++n;
  EXPECT_EQ(n, 3);  // 0, 100, 200 ms: the send at stop_at is not issued
  OpenLoopShare by_count({.schedule = &schedule, .start = start, .end_index = 2});
  n = 0;
  while (by_count.next()) ++n;
  EXPECT_EQ(n, 2);
  OpenLoopShare none({.schedule = nullptr});
  EXPECT_FALSE(none.next());
}

}  // namespace
}  // namespace sb::engine
