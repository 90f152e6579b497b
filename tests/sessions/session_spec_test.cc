// --think-time and --turns (workload/session_spec.h): literal specs, their canonical echo, the
// draws' shape and seeding, and bad values as usage errors naming the flag.
#include "workload/session_spec.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::workload {
namespace {

using namespace std::chrono_literals;

// The message of the usage error `fn` throws; "" when it throws none.
template <typename Fn>
std::string usage_message(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(ThinkTime, ParsesEveryForm) {
  ThinkTime t = parse_think_time("2s");
  EXPECT_EQ(t.kind, ThinkTime::Kind::fixed);
  EXPECT_EQ(t.min, Nanos(2s));
  EXPECT_EQ(t.to_string(), "fixed:2s");
  t = parse_think_time("fixed:500ms");
  EXPECT_EQ(t.min, Nanos(500ms));
  EXPECT_EQ(t.max, Nanos(500ms));
  t = parse_think_time("0");
  EXPECT_EQ(t.min, Nanos::zero());
  t = parse_think_time("exp:2s");
  EXPECT_EQ(t.kind, ThinkTime::Kind::exp);
  EXPECT_EQ(t.mean, Nanos(2s));
  EXPECT_EQ(t.to_string(), "exp:2s");
  t = parse_think_time("uniform:1s-3s");
  EXPECT_EQ(t.kind, ThinkTime::Kind::uniform);
  EXPECT_EQ(t.min, Nanos(1s));
  EXPECT_EQ(t.max, Nanos(3s));
  EXPECT_EQ(t.to_string(), "uniform:1s-3s");
  EXPECT_EQ(parse_think_time("uniform:250ms-1.5").max, Nanos(1500ms));  // bare number: seconds
  // The canonical echo parses back to the same spec.
  for (const char* text : {"2s", "exp:0.25s", "uniform:100ms-2m"}) {
    const ThinkTime a = parse_think_time(text);
    const ThinkTime b = parse_think_time(a.to_string());
    EXPECT_EQ(a.kind, b.kind) << text;
    EXPECT_EQ(a.min, b.min) << text;
    EXPECT_EQ(a.max, b.max) << text;
    EXPECT_EQ(a.mean, b.mean) << text;
  }
}

TEST(ThinkTime, BadValuesNameTheFlag) {
  for (const char* text : {"abc", "", "exp:", "exp:soon", "uniform:1s", "uniform:3s-1s",
                           "uniform:-1s", "gamma:2s", "-2s", "fixed:", "2 s"}) {
    const std::string m = usage_message([&] { parse_think_time(text); });
    EXPECT_NE(m.find("--think-time"), std::string::npos) << "'" << text << "': " << m;
  }
  EXPECT_NE(usage_message([] { parse_think_time("abc"); }).find("exp:D"), std::string::npos);
}

// Every prefix of a valid spec either parses or is a usage error naming the flag: the parser
// never reads past its input nor accepts half a range.
TEST(ThinkTime, EveryPrefixParsesOrIsAUsageError) {
  for (const std::string whole : {"uniform:1s-3s", "exp:2.5s", "fixed:750ms"}) {
    for (size_t n = 0; n <= whole.size(); ++n) {
      const std::string text = whole.substr(0, n);
      try {
        const ThinkTime t = parse_think_time(text);
        EXPECT_GE(t.min, Nanos::zero()) << text;
        EXPECT_GE(t.max, t.min) << text;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::usage) << text;
        EXPECT_NE(std::string(e.what()).find("--think-time"), std::string::npos) << text;
      }
    }
  }
  EXPECT_THROW(parse_think_time("uniform:1s-"), Error);
  EXPECT_THROW(parse_think_time("uniform:"), Error);
}

TEST(ThinkTime, DrawsHaveTheirShape) {
  const ThinkTime fixed = parse_think_time("2s");
  const ThinkTime exp = parse_think_time("exp:2s");
  const ThinkTime uni = parse_think_time("uniform:1s-3s");
  double exp_sum = 0, uni_sum = 0;
  Nanos uni_min = Nanos::max(), uni_max = Nanos::zero();
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    Rng a(5, static_cast<uint64_t>(i)), b(5, static_cast<uint64_t>(i)),
        c(5, static_cast<uint64_t>(i));
    EXPECT_EQ(fixed.sample(a), Nanos(2s));
    const Nanos e = exp.sample(b);
    ASSERT_GE(e, Nanos::zero());
    exp_sum += to_s(e);
    const Nanos u = uni.sample(c);
    uni_min = std::min(uni_min, u);
    uni_max = std::max(uni_max, u);
    uni_sum += to_s(u);
  }
  EXPECT_NEAR(exp_sum / n, 2.0, 0.06);  // the exponential's mean (sd 2 / sqrt(n) = 0.014)
  EXPECT_NEAR(uni_sum / n, 2.0, 0.03);
  EXPECT_GE(uni_min, Nanos(1s));
  EXPECT_LE(uni_max, Nanos(3s));
  EXPECT_LT(uni_min, Nanos(1100ms));  // the draws span the range
  EXPECT_GT(uni_max, Nanos(2900ms));
}

TEST(Turns, ParsesCountsAndDistributions) {
  EXPECT_EQ(parse_turns("5").min, 5);
  const LengthSpec u = parse_turns("uniform:min=2,max=6");
  EXPECT_EQ(u.kind, LengthSpec::Kind::uniform);
  EXPECT_EQ(u.min, 2);
  EXPECT_EQ(u.max, 6);
  EXPECT_EQ(parse_turns("empirical:1,3,3,8").values.size(), 4u);
  EXPECT_EQ(parse_turns("10000").max, kMaxTurns);
}

TEST(Turns, BadValuesNameTheFlag) {
  for (const char* text :
       {"0", "-1", "abc", "", "2.5", "10001", "uniform:min=0,max=3", "uniform:min=1,max=20000",
        "empirical:2,99999", "3,unit=chars", "uniform:min=1,max=4,unit=chars"}) {
    const std::string m = usage_message([&] { parse_turns(text); });
    EXPECT_NE(m.find("--turns"), std::string::npos) << "'" << text << "': " << m;
  }
}

TEST(SessionSpec, DrawsAreSeededPerSessionAndTurn) {
  SessionSpec s;
  s.concurrency = 2;
  s.turns = parse_turns("uniform:min=1,max=8");
  s.think = parse_think_time("exp:1s");
  int64_t lo = 100, hi = 0;
  for (uint64_t session = 0; session < 200; ++session) {
    const int64_t t = s.turns_of(3, session);
    EXPECT_EQ(t, s.turns_of(3, session));  // the same session, the same turns
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  EXPECT_EQ(lo, 1);
  EXPECT_EQ(hi, 8);
  EXPECT_EQ(s.think_before(3, 7, 2), s.think_before(3, 7, 2));
  EXPECT_NE(s.think_before(3, 7, 2), s.think_before(3, 7, 3));
  EXPECT_NE(s.think_before(3, 7, 2), s.think_before(3, 8, 2));
  EXPECT_NE(s.think_before(3, 7, 2), s.think_before(4, 7, 2));
}

}  // namespace
}  // namespace sb::workload
