#include "metrics/request_record.h"

#include <gtest/gtest.h>

namespace sb::metrics {
namespace {

constexpr int64_t ms(double v) {
  return static_cast<int64_t>(v * 1'000'000);
}

RequestRecord streamed() {
  RequestRecord r;
  r.t_sched_ns = ms(1);
  r.t_send_ns = ms(3);
  r.t_first_ns = ms(53);
  r.t_first_content_ns = ms(63);
  r.t_last_ns = ms(253);
  r.t_end_ns = ms(254);
  r.output_tokens = 5;
  return r;
}

TEST(RequestRecord, DerivedMetricsByHand) {
  const RequestRecord r = streamed();
  EXPECT_DOUBLE_EQ(*r.ttft_ms(), 50.0);            // 53 - 3
  EXPECT_DOUBLE_EQ(*r.ttft_content_ms(), 60.0);    // 63 - 3
  EXPECT_DOUBLE_EQ(*r.e2e_ms(), 250.0);            // 253 - 3
  EXPECT_DOUBLE_EQ(*r.scheduled_e2e_ms(), 252.0);  // 253 - 1
  EXPECT_DOUBLE_EQ(*r.tpot_ms(), 50.0);            // (250 - 50) / (5 - 1)
  EXPECT_DOUBLE_EQ(*r.dispatch_delay_ms(), 2.0);   // 3 - 1
}

TEST(RequestRecord, SubMillisecondPrecision) {
  RequestRecord r;
  r.t_send_ns = 1'000'000'000'000;  // 1000 s into the run
  r.t_first_ns = r.t_send_ns + 1'234'567;
  EXPECT_DOUBLE_EQ(*r.ttft_ms(), 1.234567);
}

TEST(RequestRecord, TpotUndefinedForOneToken) {
  RequestRecord r = streamed();
  r.output_tokens = 1;
  EXPECT_FALSE(r.tpot_ms());
  r.output_tokens = 0;
  EXPECT_FALSE(r.tpot_ms());
  r.output_tokens = 2;  // (250 - 50) / 1
  EXPECT_DOUBLE_EQ(*r.tpot_ms(), 200.0);
}

TEST(RequestRecord, NoTextEventMeansNoLatencies) {
  RequestRecord r;
  r.t_sched_ns = ms(1);
  r.t_send_ns = ms(2);
  r.t_end_ns = ms(10);
  r.output_tokens = 7;
  EXPECT_FALSE(r.ttft_ms());
  EXPECT_FALSE(r.ttft_content_ms());
  EXPECT_FALSE(r.e2e_ms());
  EXPECT_FALSE(r.scheduled_e2e_ms());
  EXPECT_FALSE(r.tpot_ms());
  EXPECT_DOUBLE_EQ(*r.dispatch_delay_ms(), 1.0);
}

TEST(RequestRecord, NeverSent) {
  RequestRecord r;
  r.t_sched_ns = ms(1);
  EXPECT_FALSE(r.dispatch_delay_ms());
  EXPECT_FALSE(r.ttft_ms());
}

TEST(TokenSource, NamesRoundTrip) {
  EXPECT_EQ(to_string(TokenSource::usage), "usage");
  EXPECT_EQ(to_string(TokenSource::details), "details");
  EXPECT_EQ(to_string(TokenSource::tokenizer), "tokenizer");
  EXPECT_EQ(to_string(TokenSource::estimate), "estimate");
  EXPECT_EQ(to_string(TokenSource::none), "none");
  for (auto s : {TokenSource::usage, TokenSource::details, TokenSource::tokenizer,
                 TokenSource::estimate, TokenSource::none})
    EXPECT_EQ(token_source_from_string(to_string(s)), s);
  EXPECT_FALSE(token_source_from_string("bogus"));
}

}  // namespace
}  // namespace sb::metrics
