#include "mpi/record_codec.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::mpi {
namespace {

metrics::RequestRecord sample(uint64_t id) {
  metrics::RequestRecord r;
  r.id = id;
  r.request_class = "chat";
  r.warmup = id % 2 == 0;
  r.status = 200;
  r.error_class = id % 3 == 0 ? ErrorClass::overloaded : ErrorClass::ok;
  r.error = id % 3 == 0 ? "busy \xff" : "";
  r.t_sched_ns = 10;
  r.t_send_ns = 20 + static_cast<int64_t>(id);
  r.t_first_ns = metrics::kNoTime;
  r.t_first_content_ns = 40;
  r.t_last_ns = 50;
  r.t_end_ns = 60;
  r.input_tokens = 32;
  r.output_tokens = 7;
  r.output_tokens_source = metrics::TokenSource::details;
  r.output_tokens_alt = 8;
  r.output_tokens_alt_source = metrics::TokenSource::estimate;
  r.output_text = "hello";
  r.events = 3;
  r.itl_ms = {0.5f, 1.25f};
  return r;
}

TEST(RecordCodec, RoundTripsEveryField) {
  std::vector<metrics::RequestRecord> in{sample(0), sample(1), sample(3), {}};
  const auto out = decode_records(encode_records(in));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto &a = in[i], &b = out[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.request_class, b.request_class);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.error_class, b.error_class);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.t_sched_ns, b.t_sched_ns);
    EXPECT_EQ(a.t_send_ns, b.t_send_ns);
    EXPECT_EQ(a.t_first_ns, b.t_first_ns);
    EXPECT_EQ(a.t_first_content_ns, b.t_first_content_ns);
    EXPECT_EQ(a.t_last_ns, b.t_last_ns);
    EXPECT_EQ(a.t_end_ns, b.t_end_ns);
    EXPECT_EQ(a.input_tokens, b.input_tokens);
    EXPECT_EQ(a.output_tokens, b.output_tokens);
    EXPECT_EQ(a.output_tokens_source, b.output_tokens_source);
    EXPECT_EQ(a.output_tokens_alt, b.output_tokens_alt);
    EXPECT_EQ(a.output_tokens_alt_source, b.output_tokens_alt_source);
    EXPECT_EQ(a.output_text, b.output_text);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.itl_ms, b.itl_ms);
  }
}

TEST(RecordCodec, RejectsTruncatedAndForeignBuffers) {
  const std::string bytes = encode_records({sample(1), sample(2)});
  for (size_t cut : {size_t{0}, size_t{3}, size_t{11}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(decode_records(std::string_view(bytes).substr(0, cut)), Error) << cut;
  EXPECT_THROW(decode_records("XXXXXXXXXXXXXXXX"), Error);
  EXPECT_TRUE(decode_records(encode_records({})).empty());
}

}  // namespace
}  // namespace sb::mpi
