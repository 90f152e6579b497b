// Plans: stages read and expanded, one precise message per broken field, the shipped
// example plan valid.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "plan/plan.h"

namespace sb::plan {
namespace {

using ::testing::HasSubstr;

const char* kHead = "providers:\n  - {id: t, sim: tgi}\n";

std::string error_of(const std::string& text) {
  try {
    parse_plan(text, "plan.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "(no error)";
}

TEST(Plan, ReadsStagesAndDefaults) {
  const Plan p = parse_plan(std::string(kHead) + R"(name: study
scenarios: [chat, long]
defaults: {api: tgi, warmup: 3, goodput: [ttft:500, tpot:50], cooldown: 1s, sim_time_scale: 0.1}
stages:
  - {kind: baseline}
  - {name: sweep, kind: sweep, concurrency: [4, 8, 16, 32], requests_per_level: 10}
  - {name: knee, kind: sweep, concurrency: 2, until_saturation: true, requests_per_level: 4, saturation: {min_gain: 0.1, max_concurrency: 64}}
  - {name: rates, kind: sweep, rate_search: {low: 1, high: 16, steps: 3}, duration: 10s}
  - {name: ramp, kind: ramp, from: 8, to: 64, steps: 4, step_duration: 30s}
  - {name: destructive, kind: soak, concurrency: 128, duration: 1h}
)",
                            "plan.yaml");
  EXPECT_EQ(p.name, "study");
  EXPECT_EQ(p.scenarios, (std::vector<std::string>{"chat", "long"}));
  EXPECT_EQ(p.defaults.api, "tgi");
  EXPECT_EQ(p.defaults.warmup, 3);
  EXPECT_EQ(p.defaults.cooldown_s, 1);
  ASSERT_EQ(p.stages.size(), 6u);
  EXPECT_EQ(p.stages[0].name, "baseline");  // acs-bench's baseline: concurrency 1, 10 requests
  EXPECT_EQ(p.stages[0].concurrency, (std::vector<int64_t>{1}));
  EXPECT_EQ(p.stages[0].num_requests, 10);
  EXPECT_EQ(p.stages[1].requests_per_level, 10);
  EXPECT_TRUE(p.stages[2].until_saturation);
  EXPECT_EQ(p.stages[2].saturation.min_gain, 0.1);
  EXPECT_EQ(p.stages[2].saturation.max_level, 64);
  ASSERT_TRUE(p.stages[3].rate_search);
  EXPECT_EQ(p.stages[3].rate_search->high, 16);
  EXPECT_EQ(p.stages[4].concurrency, (std::vector<int64_t>{8, 26, 45, 64}));
  EXPECT_EQ(p.stages[4].duration_s, 30);
  EXPECT_EQ(p.stages[5].kind, StageKind::soak);
  EXPECT_EQ(p.stages[5].duration_s, 3600);
}

TEST(Plan, EachBrokenFieldHasItsOwnMessage) {
  struct Case {
    std::string yaml;
    const char* message;
  };
  const std::string h = kHead;
  const Case cases[] = {
      {h + "stages:\n  - {kind: warmup}\n",
       "plan.yaml:4:12: stages[0].kind: 'warmup': expected baseline, sweep, ramp or soak"},
      {h + "stages:\n  - {name: s}\n", "plan.yaml:4:5: stages[0].kind: missing"},
      {h + "stages:\n  - {kind: sweep, concurrency: [8, 4], num_requests: 5}\n",
       "plan.yaml:4:36: stages[0] (sweep).concurrency[1]: levels must rise"},
      {h + "stages:\n  - {kind: sweep, concurrency: [1, x], num_requests: 5}\n",
       "stages[0] (sweep).concurrency[1]: 'x' is not a positive number"},
      {h + "stages:\n  - {kind: soak, concurrency: 8}\n",
       "stages[0] (soak).duration: missing: how long to hold the load"},
      {h + "stages:\n  - {kind: sweep, concurrency: [1, 2]}\n",
       "stages[0] (sweep).num_requests: missing: bound each run"},
      {h + "stages:\n  - {kind: baseline, concurrency: [1, 2]}\n",
       "stages[0] (baseline).concurrency: a baseline has one load level"},
      {h + "stages:\n  - {kind: baseline, goodput: ttfb:5}\n",
       "stages[0] (baseline).goodput[0]: --goodput"},
      {h + "stages:\n  - {kind: baseline, concurency: 4}\n",
       "plan.yaml:4:22: stages[0].concurency: unknown field"},
      {h + "scenarios: [chat, poetry]\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:19: scenarios[1]: unknown scenario 'poetry' (use chat, long or mixed)"},
      {h + "stages: []\n", "stages: missing: a list of stages"},
      {"stages:\n  - {kind: baseline}\n", "plan.yaml:1:1: providers: missing"},
      {h + "defaults: {api: grpc}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:3:17: defaults.api: 'grpc'"},
      {h + "stages:\n  - {kind: ramp, from: 8, to: 4, step_duration: 1s}\n",
       "stages[0] (ramp).to: missing or not above from"},
      {h + "stages:\n  - {kind: baseline}\n  - {kind: baseline}\n",
       "stages[1].name: 'baseline' is used twice"},
      {h + "stages:\n  - {kind: sweep, request_rate: [1, 2], until_saturation: true, num_requests: "
           "5}\n",
       "until_saturation: raises concurrency; for rates use rate_search"},
      {h + "stages:\n  - {kind: sweep, rate_search: {low: 4, high: 2}, num_requests: 5}\n",
       "stages[0] (sweep).rate_search.high: missing or not above low"},
      {h + "stages:\n  - {kind: soak, concurrency: 8, duration: 1h, until_saturation: true}\n",
       "saturation searches belong to kind: sweep"},
      {h + "stages: [\n", "YAML syntax error"},
      {"providers: nowhere.yaml\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:1:12: providers: 'nowhere.yaml': no such file"},
      {"providers:\n  - {id: a}\nstages:\n  - {kind: baseline}\n",
       "plan.yaml:2:5: providers[0] (a).base_url: missing"},
  };
  for (const auto& c : cases) EXPECT_THAT(error_of(c.yaml), HasSubstr(c.message)) << c.yaml;
}

// Seeds keep all 64 bits: no trip through a double (2^53 + 1 is the first integer a double
// cannot hold), and no multiplier forms.
TEST(Plan, SeedsKeepEveryDigit) {
  const Plan p =
      parse_plan(std::string(kHead) +
                     "defaults: {seed: 18446744073709551615, sim_seed: 9007199254740993}\n"
                     "stages: [{kind: baseline}]\n",
                 "plan.yaml");
  EXPECT_EQ(p.defaults.seed, 18446744073709551615ull);
  ASSERT_TRUE(p.defaults.sim_seed.has_value());
  EXPECT_EQ(*p.defaults.sim_seed, 9007199254740993ull);
  for (const char* bad : {"-1", "18446744073709551616", "2k", "1.5"})
    EXPECT_THAT(error_of(std::string(kHead) + "defaults: {seed: " + bad +
                         "}\nstages: [{kind: baseline}]\n"),
                HasSubstr("defaults.seed: '" + std::string(bad) + "' is not a whole number"))
        << bad;
}

TEST(Plan, ShippedReferenceStudyIsValid) {
  const Plan p = load_plan_file(SERVEBENCH_SOURCE_DIR "/examples/reference-study.yaml");
  ASSERT_EQ(p.providers.size(), 3u);
  EXPECT_EQ(p.providers[0].sim, "pytorch");
  EXPECT_EQ(p.providers[2].sim, "tgi");
  EXPECT_EQ(p.scenarios, (std::vector<std::string>{"chat", "long", "mixed"}));
  const Plan acs = load_plan_file(SERVEBENCH_SOURCE_DIR "/examples/acs-stress-test.yaml");
  EXPECT_EQ(acs.stages.size(), 3u);
}

}  // namespace
}  // namespace sb::plan
