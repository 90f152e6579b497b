// Time-varying open-loop rates (load/rate_pattern.h): the spec parser, the shape's clock, and
// schedules whose per-window counts follow the rate curve.
//
// Statistical bound: a window's count of a Poisson-based schedule is Poisson with mean
// R x (integral of m over the window), so every check allows 5 standard deviations
// (sqrt(mean)); a correct implementation fails one such check with probability ~6e-7. The seeds
// are fixed, so each test is deterministic; the bound is what a different seed must also meet.
#include "load/rate_pattern.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"
#include "load/arrival_schedule.h"

namespace sb::load {
namespace {

using std::chrono::nanoseconds;

constexpr double kPi = 3.14159265358979323846;

double seconds(nanoseconds t) {
  return static_cast<double>(t.count()) / 1e9;
}

// Offsets (seconds) of the schedule, up to (not including) end_s.
std::vector<double> offsets_until(const ScheduleConfig& c, double end_s) {
  ArrivalSchedule s(c);
  std::vector<double> out;
  for (;;) {
    const double t = seconds(s.next());
    if (t >= end_s) return out;
    out.push_back(t);
  }
}

int64_t count_in(const std::vector<double>& t, double from_s, double to_s) {
  int64_t n = 0;
  for (double x : t) n += x >= from_s && x < to_s;
  return n;
}

// |count - expected| within 5 Poisson standard deviations.
void expect_poisson_count(int64_t count, double expected, const std::string& what) {
  EXPECT_NEAR(static_cast<double>(count), expected, 5 * std::sqrt(expected))
      << what << ": " << count << " requests, expected " << expected;
}

RatePattern parsed(std::string_view spec) {
  return parse_rate_pattern(spec);
}

std::string error_of(std::string_view spec) {
  try {
    parse_rate_pattern(spec);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << spec;
  return {};
}

TEST(RatePattern, ParsesEveryShapeAndPrintsItBack) {
  const RatePattern d = parsed("diurnal:period=10m,amplitude=0.5");
  EXPECT_EQ(d.shape, RateShape::diurnal);
  EXPECT_EQ(d.period_s, 600);
  EXPECT_EQ(d.amplitude, 0.5);
  EXPECT_EQ(to_string(d), "diurnal:period=600s,amplitude=0.5");

  const RatePattern o = parsed("onoff:on=5s,off=10s,low=0.1");
  EXPECT_EQ(o.shape, RateShape::onoff);
  EXPECT_EQ(o.on_s, 5);
  EXPECT_EQ(o.off_s, 10);
  EXPECT_EQ(o.low, 0.1);
  EXPECT_EQ(to_string(o), "onoff:on=5s,off=10s,low=0.1");
  EXPECT_EQ(parsed("onoff:off=500ms,on=2s").low, 0.0);  // keys in any order; low defaults to 0

  const RatePattern f = parsed("flash:at=60s,peak=5,decay=30s");
  EXPECT_EQ(f.shape, RateShape::flash);
  EXPECT_EQ(f.at_s, 60);
  EXPECT_EQ(f.peak, 5);
  EXPECT_EQ(f.decay_s, 30);
  EXPECT_EQ(to_string(f), "flash:at=60s,peak=5,decay=30s");
  EXPECT_EQ(parsed("flash:at=0,peak=0.5,decay=1.5").at_s, 0);  // a dip at the start

  // The canonical spec keeps every digit (summary.json's record is replayed by calibrate).
  const RatePattern fine = parsed("diurnal:period=0.123456789s,amplitude=0.333333333333");
  const RatePattern back = parsed(to_string(fine));
  EXPECT_DOUBLE_EQ(back.period_s, fine.period_s);
  EXPECT_EQ(back.amplitude, fine.amplitude);

  EXPECT_TRUE(parsed("steady").steady());
  EXPECT_EQ(to_string(RatePattern{}), "steady");
  for (const char* spec : {"diurnal:period=600s,amplitude=0.5", "onoff:on=5s,off=10s,low=0.1",
                           "flash:at=60s,peak=5,decay=30s", "steady"})
    EXPECT_EQ(to_string(parsed(to_string(parsed(spec)))), spec);
}

TEST(RatePattern, RefusesBadSpecsNamingTheFlagThePartAndTheForms) {
  EXPECT_EQ(error_of("sine:period=10s"),
            std::string("--rate-pattern 'sine:period=10s': unknown pattern 'sine'; expected ") +
                std::string(kRatePatternForms));
  EXPECT_EQ(error_of("diurnal:period=600s"),
            std::string("--rate-pattern 'diurnal:period=600s': diurnal needs amplitude=; "
                        "expected ") +
                std::string(kRatePatternForms));
  const struct {
    const char* spec;
    const char* why;
  } cases[] = {
      {"", "unknown pattern ''"},
      {"diurnal", "diurnal needs parameters"},
      {"diurnal:", "diurnal needs parameters"},
      {"diurnal:period=600s,amplitude=1", "amplitude must be >= 0 and < 1"},
      {"diurnal:period=600s,amplitude=-0.1", "amplitude=-0.1 is not a number"},
      {"diurnal:period=0s,amplitude=0.5", "period must be longer than 0"},
      {"diurnal:period=ten,amplitude=0.5", "period=ten is not a duration"},
      {"diurnal:period=10parsecs,amplitude=0.5", "period=10parsecs is not a duration"},
      {"diurnal:period=600s,amplitude=0.5,phase=1", "diurnal has no key 'phase'"},
      {"diurnal:period=600s,period=60s,amplitude=0.5", "period is given twice"},
      {"diurnal:period=600s,amplitude=0.5,", "a trailing ','"},
      {"diurnal:period=600s,,amplitude=0.5", "'' is not KEY=VALUE"},
      {"diurnal:period,amplitude=0.5", "'period' is not KEY=VALUE"},
      {"diurnal:=5", "'=5' is not KEY=VALUE"},
      {"diurnal:period=600s,amplitude=0.5x", "amplitude=0.5x is not a number"},
      {"diurnal:period=600s,amplitude=nan", "amplitude=nan is not a number"},
      {"onoff:on=5s,off=10s,low=1.5", "low must be between 0 and 1"},
      {"onoff:on=5s", "onoff needs off="},
      {"onoff:on=5s,off=0,low=0.1", "off must be longer than 0"},
      {"flash:at=60s,peak=0,decay=30s", "peak must be > 0"},
      {"flash:at=60s,peak=5", "flash needs decay="},
      {"flash:at=-1s,peak=5,decay=30s", "at=-1s is not a duration"},
      {"steady:x=1", "steady takes no parameters"},
      {"Diurnal:period=600s,amplitude=0.5", "unknown pattern 'Diurnal'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.spec);
    const std::string e = error_of(c.spec);
    EXPECT_EQ(e.rfind(std::string("--rate-pattern '") + c.spec + "': ", 0), 0u) << e;
    EXPECT_NE(e.find(c.why), std::string::npos) << e;
    EXPECT_NE(e.find(kRatePatternForms), std::string::npos) << e;
  }
  // A pattern built in code is checked by the schedule too.
  RatePattern bad;
  bad.shape = RateShape::flash;
  bad.peak = 2;
  EXPECT_THROW(ArrivalSchedule({.rate_per_s = 1, .pattern = bad}), Error);
}

TEST(RateClock, IntegralAndInverseAgreeForEveryShape) {
  for (const char* spec :
       {"diurnal:period=7s,amplitude=0.9", "onoff:on=2s,off=3s,low=0.25", "onoff:on=2s,off=3s",
        "flash:at=4s,peak=8,decay=2s", "flash:at=4s,peak=0.2,decay=2s"}) {
    SCOPED_TRACE(spec);
    RateClock c(parsed(spec), 7);
    double last = 0;
    for (double u = 0; u < 100; u += 0.0371) {
      const double t = c.real_time_s(u);
      EXPECT_NEAR(c.integrated(t), u, 1e-9);
      EXPECT_GE(t, last);
      last = t;
    }
  }
  // The closed forms: M of diurnal over a whole period is the period; flash's excess.
  RateClock d(parsed("diurnal:period=10s,amplitude=0.5"), 0);
  EXPECT_NEAR(d.integrated(10), 10, 1e-12);
  EXPECT_NEAR(d.integrated(2.5), 2.5 + 0.5 * 10 / (2 * kPi), 1e-12);
  EXPECT_NEAR(d.multiplier(2.5), 1.5, 1e-12);
  EXPECT_NEAR(d.multiplier(7.5), 0.5, 1e-12);
  RateClock f(parsed("flash:at=5s,peak=3,decay=2s"), 0);
  EXPECT_EQ(f.integrated(5), 5);
  EXPECT_NEAR(f.integrated(1000), 1000 + 2 * 2, 1e-9);
  EXPECT_EQ(f.multiplier(4.999), 1);
  EXPECT_EQ(f.multiplier(5), 3);
  EXPECT_NEAR(f.multiplier(7), 1 + 2 * std::exp(-1.0), 1e-12);
  EXPECT_EQ(f.peak_multiplier(), 3);
  EXPECT_EQ(d.peak_multiplier(), 1.5);
}

TEST(RatePatternSchedule, IsTheBaseScheduleThroughTheShapesClock) {
  // M(t_i) = u_i: the pattern moves the base process's offsets, whose draws it leaves alone
  // (also onoff, whose periods come from their own generator).
  for (Arrival a : {Arrival::constant, Arrival::poisson, Arrival::gamma}) {
    const ScheduleConfig base{.rate_per_s = 20, .arrival = a, .burstiness = 0.5, .seed = 11};
    const auto u = make_schedule(base, 2000);
    for (const char* spec : {"diurnal:period=10s,amplitude=0.7", "onoff:on=1s,off=4s,low=0.3",
                             "onoff:on=9s,off=2s,low=0.5", "flash:at=3s,peak=6,decay=5s"}) {
      SCOPED_TRACE(std::string(to_string(a)) + " " + spec);
      ScheduleConfig c = base;
      c.pattern = parsed(spec);
      const auto t = make_schedule(c, 2000);
      RateClock clock(c.pattern, c.seed);
      EXPECT_EQ(t[0].count(), 0);
      for (size_t i = 0; i < t.size(); ++i) {
        // Offsets are whole nanoseconds: within 0.5 ns of the exact instant, so M within
        // 0.5 ns x the highest rate multiplier (plus the inverse's own error, far below).
        EXPECT_NEAR(clock.integrated(seconds(t[i])), seconds(u[i]),
                    0.6e-9 * clock.peak_multiplier())
            << i;
        if (i > 0) {
          EXPECT_GE(t[i], t[i - 1]);
        }
      }
    }
  }
}

TEST(RatePatternSchedule, SameSeedSameScheduleAndConstantDiurnalIsExact) {
  for (const char* spec : {"diurnal:period=30s,amplitude=0.5", "onoff:on=5s,off=10s,low=0.1",
                           "flash:at=60s,peak=5,decay=30s"}) {
    SCOPED_TRACE(spec);
    ScheduleConfig c{.rate_per_s = 10, .arrival = Arrival::poisson, .seed = 3};
    c.pattern = parsed(spec);
    EXPECT_EQ(make_schedule(c, 5000), make_schedule(c, 5000));
    ScheduleConfig other = c;
    other.seed = 4;
    EXPECT_NE(make_schedule(c, 5000), make_schedule(other, 5000));
  }
  // A constant base through diurnal: request i at exactly M^-1(i / R), to the nanosecond,
  // whatever the seed.
  ScheduleConfig c{.rate_per_s = 4, .arrival = Arrival::constant, .seed = 1};
  c.pattern = parsed("diurnal:period=60s,amplitude=0.8");
  ScheduleConfig other_seed = c;
  other_seed.seed = 99;
  const auto t = make_schedule(c, 10'000);
  EXPECT_EQ(t, make_schedule(other_seed, 10'000));
  RateClock clock(c.pattern, 0);
  for (size_t i = 0; i < t.size(); ++i)
    EXPECT_EQ(t[i].count(), std::llround(clock.real_time_s(static_cast<double>(i) / 4) * 1e9));
  // Whole periods hold exactly R x period requests each (request i is in period floor(i / 240)).
  std::vector<double> s;
  for (auto x : t) s.push_back(seconds(x));
  for (int k = 0; k < 41; ++k) EXPECT_EQ(count_in(s, 60.0 * k, 60.0 * (k + 1)), 240) << k;
}

TEST(RatePatternSchedule, DiurnalCountsFollowTheSine) {
  // R = 50/s, P = 100 s, A = 0.5, 20 periods: ~100,000 Poisson arrivals.
  const double R = 50, P = 100, A = 0.5;
  const int periods = 20;
  ScheduleConfig c{.rate_per_s = R, .arrival = Arrival::poisson, .seed = 2024};
  c.pattern = parsed("diurnal:period=100s,amplitude=0.5");
  const auto t = offsets_until(c, periods * P);
  // Mean rate over whole periods is R.
  expect_poisson_count(static_cast<int64_t>(t.size()), R * P * periods, "all periods");
  // The high quarter-period [P/8, 3P/8] around the peak and the low one [5P/8, 7P/8]:
  // integral of m = P/4 +- sqrt(2) A P / (2 pi).
  const double swing = std::sqrt(2.0) * A * P / (2 * kPi);
  int64_t high = 0, low = 0;
  for (int k = 0; k < periods; ++k) {
    high += count_in(t, k * P + P / 8, k * P + 3 * P / 8);
    low += count_in(t, k * P + 5 * P / 8, k * P + 7 * P / 8);
  }
  expect_poisson_count(high, R * periods * (P / 4 + swing), "high quarters");
  expect_poisson_count(low, R * periods * (P / 4 - swing), "low quarters");
  // Their ratio, (1 + 2 sqrt(2) A / pi) / (1 - 2 sqrt(2) A / pi) = 2.638 for A = 0.5, within
  // the two 5-sigma bounds combined (about +-0.14).
  const double ratio = static_cast<double>(high) / static_cast<double>(low);
  const double x = 2 * std::sqrt(2.0) * A / kPi;
  EXPECT_NEAR(ratio, (1 + x) / (1 - x), 0.14);
  // Every tenth of a period follows the curve.
  for (int j = 0; j < 10; ++j) {
    int64_t n = 0;
    for (int k = 0; k < periods; ++k)
      n += count_in(t, k * P + j * P / 10, k * P + (j + 1) * P / 10);
    const double a = j * P / 10, b = (j + 1) * P / 10;
    const double integral =
        (b - a) + A * P / (2 * kPi) * (std::cos(2 * kPi * a / P) - std::cos(2 * kPi * b / P));
    expect_poisson_count(n, R * periods * integral, "tenth " + std::to_string(j));
  }
}

TEST(RatePatternSchedule, FlashJumpsAtT0AndDecays) {
  // R = 100/s, a jump to 5 R at 50 s decaying with tau = 20 s.
  const double R = 100, at = 50, peak = 5, tau = 20;
  ScheduleConfig c{.rate_per_s = R, .arrival = Arrival::poisson, .seed = 77};
  c.pattern = parsed("flash:at=50s,peak=5,decay=20s");
  const auto t = offsets_until(c, 200);
  const auto expected = [&](double a, double b) {  // R x integral of m over [a, b), a >= at
    return R *
           ((b - a) + (peak - 1) * tau * (std::exp(-(a - at) / tau) - std::exp(-(b - at) / tau)));
  };
  // Before: the steady rate. The second after at: about 5x the second before.
  expect_poisson_count(count_in(t, 0, 50), R * 50, "before the flash");
  const int64_t before = count_in(t, 45, 50), after = count_in(t, 50, 55);
  expect_poisson_count(before, R * 5, "5 s before");
  expect_poisson_count(after, expected(50, 55), "5 s after");
  EXPECT_GT(after, 3 * before);
  // The decay: each 10 s window from at on, and the excess over R shrinks by e^-1 per tau.
  for (double a = 50; a < 200; a += 10)
    expect_poisson_count(count_in(t, a, a + 10), expected(a, a + 10),
                         "window at " + std::to_string(a));
  const double excess_first = static_cast<double>(count_in(t, 50, 70)) - R * 20;
  const double excess_next = static_cast<double>(count_in(t, 70, 90)) - R * 20;
  EXPECT_NEAR(excess_next / excess_first, std::exp(-1.0), 0.08);
  // Over the whole run: R x (200 + (peak - 1) tau (1 - e^-7.5)) requests.
  expect_poisson_count(static_cast<int64_t>(t.size()), expected(50, 200) + R * 50, "whole run");
}

TEST(RatePatternSchedule, OnOffSendsTheLowRateInOffPeriods) {
  const double R = 100;
  ScheduleConfig c{.rate_per_s = R, .arrival = Arrival::poisson, .seed = 5};
  c.pattern = parsed("onoff:on=5s,off=10s,low=0.1");
  const double end = 30'000;  // ~2,000 on/off cycles, ~1.2M requests
  const auto t = offsets_until(c, end);
  // Classify each request by the period it falls in, with the schedule's own periods.
  RateClock clock(c.pattern, c.seed);
  int64_t in_off = 0;
  for (double x : t) in_off += clock.multiplier(x) < 1;
  // The time spent off: M(end) = on + low x off with on + off = end.
  const double off_time = (end - clock.integrated(end)) / (1 - 0.1);
  const double on_time = end - off_time;
  expect_poisson_count(in_off, R * 0.1 * off_time, "off periods");
  expect_poisson_count(static_cast<int64_t>(t.size()) - in_off, R * on_time, "on periods");
  // The time split is near its mean 5 : 10 (5 sigma of the sum of ~2,000 exponential periods:
  // 0.05), and the fraction of requests in off periods near low off / (on + low off) = 1/6
  // (5 sigma: 0.035).
  EXPECT_NEAR(off_time / end, 10.0 / 15.0, 0.05);
  EXPECT_NEAR(static_cast<double>(in_off) / static_cast<double>(t.size()), 1.0 / 6.0, 0.035);
  EXPECT_NEAR(static_cast<double>(t.size()), expected_requests(c, std::chrono::seconds(30'000)),
              5 * std::sqrt(static_cast<double>(t.size())));

  // low = 0: nothing at all is sent in an off period.
  c.pattern = parsed("onoff:on=1s,off=2s,low=0");
  RateClock silent(c.pattern, c.seed);
  const auto quiet = offsets_until(c, 600);
  ASSERT_GT(quiet.size(), 10'000u);
  for (double x : quiet) ASSERT_EQ(silent.multiplier(x), 1) << x;
}

TEST(RatePatternSchedule, ExpectedRequestsAndPeakRate) {
  ScheduleConfig c{.rate_per_s = 10, .arrival = Arrival::poisson};
  EXPECT_EQ(expected_requests(c, std::chrono::seconds(60)), 600);
  EXPECT_EQ(peak_rate_per_s(c), 10);
  c.pattern = parsed("diurnal:period=60s,amplitude=0.5");
  EXPECT_NEAR(expected_requests(c, std::chrono::seconds(120)), 1200, 1e-9);
  EXPECT_EQ(peak_rate_per_s(c), 15);
  c.pattern = parsed("flash:at=10s,peak=5,decay=1s");
  EXPECT_NEAR(expected_requests(c, std::chrono::seconds(100)), 1000 + 10 * 4 * 1, 1e-6);
  EXPECT_EQ(peak_rate_per_s(c), 50);
}

}  // namespace
}  // namespace sb::load
