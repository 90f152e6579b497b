#include "metrics/goodput.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::metrics {
namespace {

constexpr int64_t ms(double v) {
  return static_cast<int64_t>(v * 1'000'000);
}

TEST(GoodputParse, Valid) {
  Slo slo;
  EXPECT_FALSE(parse_goodput("ttft:200", slo));
  EXPECT_FALSE(parse_goodput("tpot:50.5", slo));
  EXPECT_FALSE(parse_goodput("e2e:1000", slo));
  EXPECT_EQ(slo.ttft_ms, 200);
  EXPECT_EQ(slo.tpot_ms, 50.5);
  EXPECT_EQ(slo.e2e_ms, 1000);
  Slo vllm;
  EXPECT_FALSE(parse_goodput("e2el:300", vllm));  // vLLM's spelling
  EXPECT_EQ(vllm.e2e_ms, 300);
}

TEST(GoodputParse, Invalid) {
  for (const char* bad : {"ttft", "ttft:", "ttft:abc", "ttft:0", "ttft:-5", "ttft:10ms",
                          "latency:100", ":100", "ttft:inf", "ttft:nan"}) {
    Slo slo;
    const auto err = parse_goodput(bad, slo);
    ASSERT_TRUE(err) << bad;
    EXPECT_NE(err->find("--goodput"), std::string::npos) << *err;
    EXPECT_NE(err->find("e.g. --goodput ttft:200"), std::string::npos) << *err;
    EXPECT_TRUE(slo.empty()) << bad;
  }
  Slo slo;
  EXPECT_FALSE(parse_goodput("ttft:100", slo));
  const auto twice = parse_goodput("ttft:200", slo);
  ASSERT_TRUE(twice);
  EXPECT_NE(twice->find("twice"), std::string::npos);
  EXPECT_EQ(slo.ttft_ms, 100);
}

TEST(GoodputParse, Flags) {
  const Slo slo = parse_goodput_flags({"ttft:200", "tpot:50"});
  EXPECT_EQ(slo.ttft_ms, 200);
  EXPECT_EQ(slo.tpot_ms, 50);
  EXPECT_FALSE(slo.e2e_ms);
  try {
    parse_goodput_flags({"ttft:200", "foo:1"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
}

// ttft 50 ms, e2e 250 ms, 5 tokens -> tpot (250 - 50) / 4 = 50 ms.
RequestRecord good_request() {
  RequestRecord r;
  r.t_sched_ns = 0;
  r.t_send_ns = 0;
  r.t_first_ns = ms(50);
  r.t_last_ns = ms(250);
  r.t_end_ns = ms(250);
  r.output_tokens = 5;
  return r;
}

TEST(GoodputMeets, BoundsAreInclusive) {
  const RequestRecord r = good_request();
  EXPECT_TRUE(meets_slo(r, Slo{50.0, 50.0, 250.0}));
  EXPECT_FALSE(meets_slo(r, Slo{49.9, std::nullopt, std::nullopt}));
  EXPECT_FALSE(meets_slo(r, Slo{std::nullopt, 49.9, std::nullopt}));
  EXPECT_FALSE(meets_slo(r, Slo{std::nullopt, std::nullopt, 249.9}));
  EXPECT_TRUE(meets_slo(r, Slo{}));  // no bound: every ok request
}

TEST(GoodputMeets, FailedNeverMeets) {
  RequestRecord r = good_request();
  r.error_class = ErrorClass::incomplete_stream;
  EXPECT_FALSE(meets_slo(r, Slo{}));
  EXPECT_FALSE(meets_slo(r, Slo{1000.0, 1000.0, 1000.0}));
}

TEST(GoodputMeets, OneTokenMeetsAnyTpotBound) {
  // vLLM calculate_metrics: tpot counts as 0 when output_len <= 1.
  RequestRecord r = good_request();
  r.output_tokens = 1;
  EXPECT_TRUE(meets_slo(r, Slo{std::nullopt, 0.001, std::nullopt}));
  EXPECT_FALSE(meets_slo(r, Slo{10.0, 0.001, std::nullopt}));  // ttft still applies
}

TEST(GoodputMeets, UndefinedMetricFails) {
  RequestRecord r;  // ok, but no text event arrived: ttft, e2e, tpot undefined
  r.t_send_ns = 0;
  r.t_end_ns = ms(10);
  r.output_tokens = 5;
  EXPECT_FALSE(meets_slo(r, Slo{1000.0, std::nullopt, std::nullopt}));
  EXPECT_FALSE(meets_slo(r, Slo{std::nullopt, 1000.0, std::nullopt}));
  EXPECT_FALSE(meets_slo(r, Slo{std::nullopt, std::nullopt, 1000.0}));
}

}  // namespace
}  // namespace sb::metrics
