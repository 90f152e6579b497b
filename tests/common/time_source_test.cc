#include "common/time_source.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/manual_time_source.h"

namespace sb {
namespace {

using namespace std::chrono_literals;

TEST(TimeSource, SteadyIsTheSteadyClockAndTheDefault) {
  const TimePoint before = Clock::now();
  const TimePoint t = steady_time_source().now();
  EXPECT_LE(before, t);
  EXPECT_LE(t, Clock::now());
  EXPECT_EQ(&time_source_or_steady(nullptr), &steady_time_source());
  ManualTimeSource manual;
  EXPECT_EQ(&time_source_or_steady(&manual), &manual);
  EXPECT_EQ(now_of(&manual), manual.now());
}

TEST(TimeSource, SteadySleeperPastDeadlineReturnsAtOnceAndWakeIsKept) {
  Sleeper s(steady_time_source());
  EXPECT_FALSE(s.sleep_until(Clock::now() - 1s));
  s.wake();                                       // nobody asleep: kept
  EXPECT_TRUE(s.sleep_until(Clock::now() + 1h));  // ends at once
  EXPECT_FALSE(s.sleep_until(Clock::now()));      // consumed
}

TEST(TimeSource, SteadySleeperWokenFromAnotherThread) {
  Sleeper s(steady_time_source());
  std::thread t([&] { s.wake(); });
  EXPECT_TRUE(s.sleep_until(Clock::now() + 1h));
  t.join();
}

TEST(ManualTimeSource, TimeMovesOnlyWhenAdvancedAndNeverBack) {
  const TimePoint start = TimePoint{} + 5s;
  ManualTimeSource clock(start);
  EXPECT_EQ(clock.now(), start);
  clock.advance(250ms);
  EXPECT_EQ(clock.now(), start + 250ms);
  clock.advance_to(start);  // earlier: ignored
  EXPECT_EQ(clock.now(), start + 250ms);
  clock.advance_to(start + 1s);
  EXPECT_EQ(clock.now(), start + 1s);
}

TEST(ManualTimeSource, SleeperWakesExactlyAtItsDeadline) {
  ManualTimeSource clock;
  const TimePoint deadline = clock.now() + 100ms;
  std::atomic<bool> returned{false};
  std::thread t([&] {
    Sleeper s(clock);
    EXPECT_FALSE(s.sleep_until(deadline));
    EXPECT_GE(clock.now(), deadline);
    returned = true;
  });
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  clock.advance(100ms - 1ns);
  EXPECT_EQ(clock.sleepers(), 1);  // 1 ns early: still asleep
  EXPECT_FALSE(returned.load());
  clock.advance(1ns);
  t.join();
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(clock.sleepers(), 0);
}

TEST(ManualTimeSource, WakeEndsASleepWithoutTimeMoving) {
  ManualTimeSource clock;
  Sleeper s(clock);
  const TimePoint t0 = clock.now();
  std::thread t([&] { EXPECT_TRUE(s.sleep_until(t0 + 1h)); });
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  s.wake();
  t.join();
  EXPECT_EQ(clock.now(), t0);
  s.wake();  // kept for the next sleep
  EXPECT_TRUE(s.sleep_until(t0 + 1h));
  EXPECT_FALSE(s.sleep_until(t0));  // deadline already here
}

TEST(ManualTimeSource, WaitForSleepersTimesOutWhenNobodySleeps) {
  ManualTimeSource clock;
  EXPECT_FALSE(clock.wait_for_sleepers(1, 10ms));
}

}  // namespace
}  // namespace sb
