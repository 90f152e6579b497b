// Priority classes (load/priority_mix.h): the --priority-mix parser on literal inputs, cut and
// damaged at every byte, and the seeded per-request draw.
#include "load/priority_mix.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::load {
namespace {

// The message of the usage error parse_priority_mix throws; "" when it accepts the text.
std::string error_of(std::string_view text) {
  try {
    parse_priority_mix(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << text;
    return e.what();
  }
  return "";
}

TEST(PriorityMix, ParsesClassesInOrderWithTheirPositionAsPriority) {
  const PriorityMix m = parse_priority_mix("high:0.2,normal:0.8");
  ASSERT_EQ(m.classes.size(), 2u);
  EXPECT_EQ(m.classes[0].name, "high");
  EXPECT_DOUBLE_EQ(m.classes[0].share, 0.2);
  EXPECT_EQ(m.classes[0].priority, 0);
  EXPECT_EQ(m.classes[1].name, "normal");
  EXPECT_DOUBLE_EQ(m.classes[1].share, 0.8);
  EXPECT_EQ(m.classes[1].priority, 1);

  const PriorityMix one = parse_priority_mix("all:1");
  ASSERT_EQ(one.classes.size(), 1u);
  EXPECT_EQ(one.classes[0].priority, 0);

  const PriorityMix three = parse_priority_mix("gold:0.1,silver_2:.3,bronze-x:0.6");
  ASSERT_EQ(three.classes.size(), 3u);
  EXPECT_EQ(three.classes[2].name, "bronze-x");
  EXPECT_EQ(three.classes[2].priority, 2);
  EXPECT_DOUBLE_EQ(three.classes[1].share, 0.3);

  // Within 1e-6 of 1 is 1; high/normal/low in order with other names between them.
  EXPECT_EQ(error_of("high:0.3333333,normal:0.3333333,low:0.3333334"), "");
  EXPECT_EQ(error_of("high:0.5,mid:0.25,low:0.25"), "");
  EXPECT_EQ(error_of("high:0.1,normal:0.9000009"), "");
}

TEST(PriorityMix, RefusesBadMixesNamingTheFlagAndThePart) {
  const struct {
    const char* text;
    const char* why;
  } cases[] = {
      {"", "empty"},
      {"high:abc,normal:0.8", "share 'abc' of class 'high' is not a number"},
      {"high:0.2,normal:0.7", "the shares sum to 0.9, not 1"},
      {"high:0.2,normal:0.800002", "the shares sum to 1.000002, not 1"},
      {"high:0.2,normal", "'normal' has no ':SHARE'"},
      {"high", "'high' has no ':SHARE'"},
      {":1", "class name '' must be"},
      {"hi gh:1", "class name 'hi gh' must be"},
      {"high:0.5,high:0.5", "class 'high' is given twice"},
      {"high:0,normal:1", "share 0 of class 'high' must be in (0, 1]"},
      {"high:1.5,normal:-0.5", "share 1.5 of class 'high' must be in (0, 1]"},
      {"high:-0.5,normal:1.5", "share '-0.5' of class 'high' is not a number"},
      {"high:1e-1,normal:0.9", "share '1e-1' of class 'high' is not a number"},
      {"high:nan,normal:0.8", "share 'nan' of class 'high' is not a number"},
      {"high:0.2,,normal:0.8", "'' has no ':SHARE'"},
      {"high:0.2,normal:0.8,", "'' has no ':SHARE'"},
      {"high:0.2:1,normal:0.8", "share '0.2:1' of class 'high' is not a number"},
      {"high:.,normal:1", "share '.' of class 'high' is not a number"},
      {"normal:0.8,high:0.2", "most urgent first: 'high' after a less urgent one"},
      {"high:0.2,low:0.3,normal:0.5", "most urgent first: 'normal' after a less urgent one"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(std::string("--priority-mix '") + c.text + "'"), std::string::npos)
        << c.text << ": " << e;
    EXPECT_NE(e.find(c.why), std::string::npos) << c.text << ": " << e;
    EXPECT_NE(e.find("e.g. high:0.2,normal:0.8"), std::string::npos) << e;
  }
}

// Every cut of a good mix short of its end is refused (no share sums to 1 before the last
// digit), and so is the text with any one byte replaced by a space or doubled ',' / ':'.
TEST(PriorityMix, EveryCutAndEveryDamagedByteIsAUsageErrorNamingTheFlag) {
  const std::string good = "high:0.2,normal:0.8";
  ASSERT_EQ(error_of(good), "");
  for (size_t k = 0; k < good.size(); ++k) {
    const std::string cut = good.substr(0, k);
    EXPECT_NE(error_of(cut).find("--priority-mix"), std::string::npos) << "cut at " << k;
    std::string damaged = good;
    damaged[k] = ' ';
    EXPECT_NE(error_of(damaged).find("--priority-mix"), std::string::npos) << damaged;
    const std::string spliced = good.substr(0, k) + "," + good.substr(k);
    EXPECT_NE(error_of(spliced).find("--priority-mix"), std::string::npos) << spliced;
  }
}

TEST(PriorityMix, DrawIsSeededPerRequestAndFollowsTheShares) {
  const PriorityMix m = parse_priority_mix("high:0.2,normal:0.8");
  constexpr uint64_t kN = 20000;
  uint64_t high = 0;
  std::vector<size_t> first;
  for (uint64_t id = 0; id < kN; ++id) {
    const size_t c = priority_class_of(m, 7, id);
    ASSERT_LT(c, 2u);
    high += c == 0;
    if (id < 64) first.push_back(c);
  }
  // Binomial(20000, 0.2): mean 4000, sd 56.6; 5 sd.
  EXPECT_NEAR(static_cast<double>(high), 4000.0, 283.0);
  // The same seed and id give the same class, in any order; another seed another sequence.
  for (uint64_t id = 64; id-- > 0;) EXPECT_EQ(priority_class_of(m, 7, id), first[id]);
  size_t differ = 0;
  for (uint64_t id = 0; id < 64; ++id) differ += priority_class_of(m, 8, id) != first[id];
  EXPECT_GT(differ, 0u);
  // One class takes every request.
  const PriorityMix one = parse_priority_mix("only:1");
  for (uint64_t id = 0; id < 100; ++id) EXPECT_EQ(priority_class_of(one, 3, id), 0u);
}

}  // namespace
}  // namespace sb::load
