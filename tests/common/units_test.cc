#include "common/units.h"

#include <string>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb {
namespace {

// The usage error's message, or "" when `f` does not throw one.
template <typename F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(ParseDurationS, EveryUnit) {
  EXPECT_DOUBLE_EQ(parse_duration_s("30s"), 30);
  EXPECT_DOUBLE_EQ(parse_duration_s("200ms"), 0.2);
  EXPECT_DOUBLE_EQ(parse_duration_s("1.5m"), 90);
  EXPECT_DOUBLE_EQ(parse_duration_s("1h"), 3600);
  EXPECT_DOUBLE_EQ(parse_duration_s("500us"), 500e-6);
  EXPECT_DOUBLE_EQ(parse_duration_s("250ns"), 250e-9);
  EXPECT_DOUBLE_EQ(parse_duration_s("10"), 10);  // bare: seconds
  EXPECT_DOUBLE_EQ(parse_duration_s("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(parse_duration_s("0"), 0);
  EXPECT_DOUBLE_EQ(parse_duration_s("0s"), 0);
  EXPECT_DOUBLE_EQ(parse_duration_s(".5s"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_s("1e3ms"), 1);
}

TEST(ParseDurationMs, BareNumberIsMilliseconds) {
  EXPECT_DOUBLE_EQ(parse_duration_ms("200"), 200);
  EXPECT_DOUBLE_EQ(parse_duration_ms("200ms"), 200);
  EXPECT_DOUBLE_EQ(parse_duration_ms("1.5s"), 1500);
  EXPECT_DOUBLE_EQ(parse_duration_ms("500us"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration_ms("2m"), 120000);
  EXPECT_DOUBLE_EQ(parse_duration_ms("1h"), 3600000);
  EXPECT_DOUBLE_EQ(parse_duration_ms("1000000ns"), 1);
}

TEST(ParseDuration, BadInputsNameTheValueAndTheForms) {
  for (const char* bad : {"", "abc", "-1s", "1x", "s", " 1s", "1s ", "+1s", "1 s", "inf", "nan",
                          "1e", "1sec", "1.5.2s", "1e400s"}) {
    SCOPED_TRACE(bad);
    const std::string msg = usage_message([&] { parse_duration_s(bad); });
    ASSERT_FALSE(msg.empty());
    EXPECT_NE(msg.find(std::string("\"") + bad + "\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"200ms\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("bare number means seconds"), std::string::npos) << msg;
    EXPECT_FALSE(usage_message([&] { parse_duration_ms(bad); }).empty());
  }
  EXPECT_NE(usage_message([] { parse_duration_ms("x"); }).find("bare number means milliseconds"),
            std::string::npos);
}

TEST(ParseDuration, MessagesGiveReasonAndField) {
  EXPECT_EQ(usage_message([] {
              parse_duration_s("-1s", "--duration");
            }).rfind("--duration: invalid duration \"-1s\": must not be negative; expected ", 0),
            0u);
  EXPECT_NE(usage_message([] { parse_duration_s("1x"); }).find("unknown unit \"x\""),
            std::string::npos);
  EXPECT_NE(usage_message([] { parse_duration_s(""); }).find("empty value"), std::string::npos);
}

TEST(ParseCount, EveryForm) {
  EXPECT_EQ(parse_count("100"), 100);
  EXPECT_EQ(parse_count("0"), 0);
  EXPECT_EQ(parse_count("2k"), 2000);
  EXPECT_EQ(parse_count("2K"), 2000);
  EXPECT_EQ(parse_count("1.5M"), 1500000);
  EXPECT_EQ(parse_count("3G"), 3000000000);
  EXPECT_EQ(parse_count("1.5k"), 1500);
  EXPECT_EQ(parse_count("1e3"), 1000);
  EXPECT_EQ(parse_count("9000000000000000000"), 9000000000000000000);
}

TEST(ParseCount, BadInputs) {
  for (const char* bad :
       {"", "abc", "-1", "1x", "-1k", "1.5", "1.0005k", "k", "1m", "1 k", "1e19", "1e300G"}) {
    SCOPED_TRACE(bad);
    const std::string msg = usage_message([&] { parse_count(bad, "--num-requests"); });
    ASSERT_FALSE(msg.empty());
    EXPECT_EQ(msg.rfind(std::string("--num-requests: invalid count \"") + bad + "\"", 0), 0u)
        << msg;
    EXPECT_NE(msg.find("\"1.5M\""), std::string::npos) << msg;
  }
  EXPECT_NE(usage_message([] { parse_count("1.5"); }).find("not a whole number"),
            std::string::npos);
}

TEST(ParseRatePerS, EveryForm) {
  EXPECT_DOUBLE_EQ(parse_rate_per_s("10"), 10);
  EXPECT_DOUBLE_EQ(parse_rate_per_s("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(parse_rate_per_s("0.1"), 0.1);
  EXPECT_DOUBLE_EQ(parse_rate_per_s("4/s"), 4);
}

TEST(ParseRatePerS, BadInputs) {
  for (const char* bad : {"", "abc", "-1", "-1s", "1x", "0", "0.0", "1/m", "inf", "10 "}) {
    SCOPED_TRACE(bad);
    const std::string msg = usage_message([&] { parse_rate_per_s(bad); });
    ASSERT_FALSE(msg.empty());
    EXPECT_NE(msg.find(std::string("invalid rate \"") + bad + "\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("per second"), std::string::npos) << msg;
  }
  EXPECT_NE(usage_message([] { parse_rate_per_s("0"); }).find("greater than zero"),
            std::string::npos);
}

TEST(ParseUint64, KeepsEveryDigitAbove2To53) {
  EXPECT_EQ(parse_uint64("0"), 0u);
  EXPECT_EQ(parse_uint64("42"), 42u);
  // 2^53 + 1 is the first integer a double cannot hold.
  EXPECT_EQ(parse_uint64("9007199254740993"), 9007199254740993ull);
  EXPECT_EQ(parse_uint64("18446744073709551615"), UINT64_MAX);
}

TEST(ParseUint64, BadInputs) {
  for (const char* bad : {"", "abc", "-1", "+1", "1k", "1e3", "1.5", " 1", "1 ", "0x10",
                          "18446744073709551616", "99999999999999999999999"}) {
    SCOPED_TRACE(bad);
    const std::string msg = usage_message([&] { parse_uint64(bad, "seed"); });
    ASSERT_FALSE(msg.empty());
    EXPECT_EQ(msg.rfind(std::string("seed: invalid number \"") + bad + "\"", 0), 0u) << msg;
    EXPECT_NE(msg.find("18446744073709551615"), std::string::npos) << msg;
  }
  EXPECT_NE(usage_message([] { parse_uint64("18446744073709551616"); }).find("too large"),
            std::string::npos);
}

}  // namespace
}  // namespace sb
