#include "mpi/record_codec.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/error.h"
#include "results/request_jsonl.h"

namespace sb::mpi {
namespace {

quality::RequestQuality sample_quality(int k) {
  quality::RequestQuality q;
  q.bleu = 41.5 + k;
  q.chrf = 63.25;
  q.rouge_l = 0.375;
  q.exact_match = true;
  q.empty_reference = true;
  q.bleu_stats.hyp_len = 11;
  q.bleu_stats.ref_len = 12;
  for (int n = 0; n < quality::kBleuOrder; ++n) {
    q.bleu_stats.correct[n] = 10 - n;
    q.bleu_stats.total[n] = 11 - n;
  }
  for (int n = 0; n < quality::kChrfOrder; ++n) {
    q.chrf_stats.hyp[n] = 100 + n;
    q.chrf_stats.ref[n] = 200 + n;
    q.chrf_stats.match[n] = 50 + n;
  }
  return q;
}

// Every member differs from its RequestRecord default.
metrics::RequestRecord sample(uint64_t id) {
  metrics::RequestRecord r;
  r.id = id + 1;
  r.request_class = "chat";
  r.priority_class = "high";
  r.priority = 2;
  r.warmup = true;
  r.status = 503;
  r.error_class = ErrorClass::overloaded;
  r.error = "busy \xff";
  r.t_sched_ns = 10;
  r.t_send_ns = 20 + static_cast<int64_t>(id);
  r.t_first_ns = 30;
  r.t_first_content_ns = 40;
  r.t_last_ns = 50;
  r.t_end_ns = 60;
  r.session_id = 4;
  r.turn = 2;
  r.session_turns = 5;
  r.history_tokens = 300;
  r.input_tokens = 32;
  r.output_tokens = 7;
  r.output_tokens_source = metrics::TokenSource::details;
  r.output_tokens_alt = 8;
  r.output_tokens_alt_source = metrics::TokenSource::estimate;
  r.reasoning_tokens = 5;
  r.items = 7;
  r.reasoning_tokens_source = metrics::TokenSource::usage;
  r.output_text = "hello";
  r.quality = std::make_shared<const quality::RequestQuality>(sample_quality(static_cast<int>(id)));
  r.events = 3;
  r.itl_ms = {0.5f, 1.25f};
  r.client = {.pool_wait_ms = 0.5f,
              .connect_ms = 0.25f,
              .tls_ms = 1.5f,
              .write_ms = 0.125f,
              .ttfb_ms = 9.5f,
              .headers_ms = 9.75f,
              .read_lag_max_ms = 0.0625f,
              .reused = true};
  r.server = {.queue_ms = 1,
              .prefill_ms = 2,
              .decode_ms = 3,
              .inference_ms = 5,
              .total_ms = 6.5,
              .cached_tokens = 16,
              .source = ServerTimingSource::llamacpp_timings};
  return r;
}

void expect_same_quality(const quality::RequestQuality& a, const quality::RequestQuality& b) {
  EXPECT_EQ(a.bleu, b.bleu);
  EXPECT_EQ(a.chrf, b.chrf);
  EXPECT_EQ(a.rouge_l, b.rouge_l);
  EXPECT_EQ(a.exact_match, b.exact_match);
  EXPECT_EQ(a.empty_reference, b.empty_reference);
  EXPECT_EQ(a.bleu_stats.hyp_len, b.bleu_stats.hyp_len);
  EXPECT_EQ(a.bleu_stats.ref_len, b.bleu_stats.ref_len);
  EXPECT_EQ(a.bleu_stats.correct, b.bleu_stats.correct);
  EXPECT_EQ(a.bleu_stats.total, b.bleu_stats.total);
  EXPECT_EQ(a.chrf_stats.hyp, b.chrf_stats.hyp);
  EXPECT_EQ(a.chrf_stats.ref, b.chrf_stats.ref);
  EXPECT_EQ(a.chrf_stats.match, b.chrf_stats.match);
}

// Compares every member. The structured binding must name each member of RequestRecord: when
// a member is added, this stops compiling ("N names provided ... decomposes into N+1
// elements"). Then carry the new member in src/mpi/record_codec.cc (which fails the same way),
// set it to a non-default value in sample() and compare it here.
void expect_same(const metrics::RequestRecord& a, const metrics::RequestRecord& b) {
  const auto& [id, request_class, priority_class, priority, warmup, status, error_class, error,
               t_sched_ns, t_send_ns, t_first_ns, t_first_content_ns, t_last_ns, t_end_ns,
               session_id, turn, session_turns, history_tokens, input_tokens, items, output_tokens,
               output_tokens_source, output_tokens_alt, output_tokens_alt_source, reasoning_tokens,
               reasoning_tokens_source, output_text, quality, client, server, events, itl_ms] = a;
  EXPECT_EQ(id, b.id);
  EXPECT_EQ(request_class, b.request_class);
  EXPECT_EQ(priority_class, b.priority_class);
  EXPECT_EQ(priority, b.priority);
  EXPECT_EQ(warmup, b.warmup);
  EXPECT_EQ(status, b.status);
  EXPECT_EQ(error_class, b.error_class);
  EXPECT_EQ(error, b.error);
  EXPECT_EQ(t_sched_ns, b.t_sched_ns);
  EXPECT_EQ(t_send_ns, b.t_send_ns);
  EXPECT_EQ(t_first_ns, b.t_first_ns);
  EXPECT_EQ(t_first_content_ns, b.t_first_content_ns);
  EXPECT_EQ(t_last_ns, b.t_last_ns);
  EXPECT_EQ(t_end_ns, b.t_end_ns);
  EXPECT_EQ(session_id, b.session_id);
  EXPECT_EQ(turn, b.turn);
  EXPECT_EQ(session_turns, b.session_turns);
  EXPECT_EQ(history_tokens, b.history_tokens);
  EXPECT_EQ(input_tokens, b.input_tokens);
  EXPECT_EQ(items, b.items);
  EXPECT_EQ(output_tokens, b.output_tokens);
  EXPECT_EQ(output_tokens_source, b.output_tokens_source);
  EXPECT_EQ(output_tokens_alt, b.output_tokens_alt);
  EXPECT_EQ(output_tokens_alt_source, b.output_tokens_alt_source);
  EXPECT_EQ(reasoning_tokens, b.reasoning_tokens);
  EXPECT_EQ(reasoning_tokens_source, b.reasoning_tokens_source);
  EXPECT_EQ(output_text, b.output_text);
  ASSERT_EQ(quality == nullptr, b.quality == nullptr);
  if (quality) expect_same_quality(*quality, *b.quality);
  EXPECT_EQ(client.pool_wait_ms, b.client.pool_wait_ms);
  EXPECT_EQ(client.connect_ms, b.client.connect_ms);
  EXPECT_EQ(client.tls_ms, b.client.tls_ms);
  EXPECT_EQ(client.write_ms, b.client.write_ms);
  EXPECT_EQ(client.ttfb_ms, b.client.ttfb_ms);
  EXPECT_EQ(client.headers_ms, b.client.headers_ms);
  EXPECT_EQ(client.read_lag_max_ms, b.client.read_lag_max_ms);
  EXPECT_EQ(client.reused, b.client.reused);
  EXPECT_EQ(server.queue_ms, b.server.queue_ms);
  EXPECT_EQ(server.prefill_ms, b.server.prefill_ms);
  EXPECT_EQ(server.decode_ms, b.server.decode_ms);
  EXPECT_EQ(server.inference_ms, b.server.inference_ms);
  EXPECT_EQ(server.total_ms, b.server.total_ms);
  EXPECT_EQ(server.cached_tokens, b.server.cached_tokens);
  EXPECT_EQ(server.source, b.server.source);
  EXPECT_EQ(events, b.events);
  EXPECT_EQ(itl_ms, b.itl_ms);
  // The requests.jsonl line covers what the output contract shows, quality and output text
  // included, so a member that reaches the log but not the codec fails here too.
  std::string line_a, line_b;
  results::append_request_jsonl(line_a, a);
  results::append_request_jsonl(line_b, b);
  EXPECT_EQ(line_a, line_b);
}

TEST(RecordCodec, SampleSetsEveryFieldToANonDefaultValue) {
  const metrics::RequestRecord d, s = sample(0);
  const quality::RequestQuality dq;
  // Each comparison differs, so a member the codec dropped (decoded as its default) would
  // show in RoundTripsEveryField.
  EXPECT_NE(s.id, d.id);
  EXPECT_NE(s.request_class, d.request_class);
  EXPECT_NE(s.priority_class, d.priority_class);
  EXPECT_NE(s.priority, d.priority);
  EXPECT_NE(s.warmup, d.warmup);
  EXPECT_NE(s.status, d.status);
  EXPECT_NE(s.error_class, d.error_class);
  EXPECT_NE(s.error, d.error);
  for (auto [got, def] : {std::pair{s.t_sched_ns, d.t_sched_ns},
                          {s.t_send_ns, d.t_send_ns},
                          {s.t_first_ns, d.t_first_ns},
                          {s.t_first_content_ns, d.t_first_content_ns},
                          {s.t_last_ns, d.t_last_ns},
                          {s.t_end_ns, d.t_end_ns},
                          {s.input_tokens, d.input_tokens},
                          {s.output_tokens, d.output_tokens},
                          {s.output_tokens_alt, d.output_tokens_alt},
                          {s.reasoning_tokens, d.reasoning_tokens}})
    EXPECT_NE(got, def);
  EXPECT_NE(s.output_tokens_source, d.output_tokens_source);
  EXPECT_NE(s.output_tokens_alt_source, d.output_tokens_alt_source);
  EXPECT_NE(s.reasoning_tokens_source, d.reasoning_tokens_source);
  EXPECT_NE(s.output_text, d.output_text);
  ASSERT_NE(s.quality, nullptr);
  EXPECT_EQ(d.quality, nullptr);
  EXPECT_NE(s.events, d.events);
  EXPECT_NE(s.itl_ms, d.itl_ms);
  const auto& q = *s.quality;
  EXPECT_NE(q.bleu, dq.bleu);
  EXPECT_NE(q.chrf, dq.chrf);
  EXPECT_NE(q.rouge_l, dq.rouge_l);
  EXPECT_NE(q.exact_match, dq.exact_match);
  EXPECT_NE(q.empty_reference, dq.empty_reference);
  EXPECT_NE(q.bleu_stats.hyp_len, dq.bleu_stats.hyp_len);
  EXPECT_NE(q.bleu_stats.ref_len, dq.bleu_stats.ref_len);
  for (int n = 0; n < quality::kBleuOrder; ++n) {
    EXPECT_NE(q.bleu_stats.correct[n], 0);
    EXPECT_NE(q.bleu_stats.total[n], 0);
  }
  for (int n = 0; n < quality::kChrfOrder; ++n) {
    EXPECT_NE(q.chrf_stats.hyp[n], 0);
    EXPECT_NE(q.chrf_stats.ref[n], 0);
    EXPECT_NE(q.chrf_stats.match[n], 0);
  }
}

TEST(RecordCodec, RoundTripsEveryField) {
  metrics::RequestRecord unscored = sample(7);
  unscored.quality = nullptr;
  unscored.itl_ms.clear();
  std::vector<metrics::RequestRecord> in{sample(0), sample(1), unscored, {}};
  const auto out = decode_records(encode_records(in));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(in[i], out[i]);
  }
}

TEST(RecordCodec, RejectsTruncatedAndForeignBuffers) {
  const std::string bytes = encode_records({sample(1), sample(2)});
  for (size_t cut : {size_t{0}, size_t{3}, size_t{11}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(decode_records(std::string_view(bytes).substr(0, cut)), Error) << cut;
  EXPECT_THROW(decode_records("XXXXXXXXXXXXXXXX"), Error);
  EXPECT_TRUE(decode_records(encode_records({})).empty());
}

TEST(RecordCodec, RoundTripsEveryErrorClass) {
  std::vector<metrics::RequestRecord> in;
  for (size_t c = 0; c < kErrorClassNames.size(); ++c) {
    in.push_back(sample(c));
    in.back().error_class = static_cast<ErrorClass>(c);
  }
  const auto out = decode_records(encode_records(in));
  ASSERT_EQ(out.size(), in.size());
  for (size_t c = 0; c < in.size(); ++c) EXPECT_EQ(out[c].error_class, in[c].error_class) << c;
  EXPECT_EQ(out.back().error_class, ErrorClass::abandoned);  // the newest class, last
}

TEST(RecordCodec, RejectsAnOutOfRangeErrorClass) {
  std::string bytes = encode_records({sample(1)});
  // magic (4) + count (8) + id (8) + warmup (1) + status (4), then the error class byte.
  bytes[4 + 8 + 8 + 1 + 4] = static_cast<char>(kErrorClassNames.size());
  EXPECT_THROW(decode_records(bytes), Error);
}

}  // namespace
}  // namespace sb::mpi
