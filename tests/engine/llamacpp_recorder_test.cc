// The response recorder on llama.cpp's native /completion stream (--api llamacpp):
// no [DONE], the "stop": true event ends it, its tokens_predicted is the count and its
// timings the server's; the same outcome wherever the bytes are split.
#include <gtest/gtest.h>

#include <memory>

#include "engine/response_recorder.h"

namespace sb::engine {
namespace {

constexpr int64_t kMs = 1'000'000;

constexpr std::string_view kStream =
    "data: {\"index\":0,\"content\":\"Hello\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
    "\"tokens_predicted\":1,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\" world\",\"tokens\":[],\"stop\":false,\"id_slot\":-1,"
    "\"tokens_predicted\":2,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":0,\"stop\":true,"
    "\"tokens_predicted\":3,\"tokens_evaluated\":5,\"tokens_cached\":8,\"timings\":{"
    "\"cache_n\":2,\"prompt_n\":3,\"prompt_ms\":7.5,\"predicted_n\":3,\"predicted_ms\":30.0,"
    "\"predicted_per_token_ms\":10.0}}\n\n";

struct Fixture {
  Fixture() {
    protocol::AdapterConfig c;
    c.api = protocol::Api::llamacpp;
    adapter = protocol::make_adapter(c);
    recorder = std::make_unique<ResponseRecorder>(*adapter, true, 1 << 20);
    record.t_sched_ns = 0;
    record.t_send_ns = 0;
    recorder->begin(record);
    record.status = 200;
  }
  std::unique_ptr<protocol::Adapter> adapter;
  std::unique_ptr<ResponseRecorder> recorder;
  metrics::RequestRecord record;
};

TEST(LlamaCppRecorder, SplitAtEveryByteGivesTheSameOutcome) {
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    Fixture f;
    f.recorder->on_body(kStream.substr(0, cut), 10 * kMs);
    f.recorder->on_body(kStream.substr(cut), 20 * kMs);
    f.recorder->finish(21 * kMs, true);
    const auto& r = f.record;
    ASSERT_TRUE(r.ok()) << "cut " << cut << ": " << r.error;
    EXPECT_EQ(r.events, 2u) << cut;        // the stop event carries no text
    EXPECT_EQ(r.output_tokens, 3) << cut;  // tokens_predicted, not the event count
    EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::usage) << cut;
    EXPECT_EQ(r.input_tokens, 5) << cut;
  }
}

TEST(LlamaCppRecorder, StreamWithoutStopIsIncomplete) {
  Fixture f;
  const std::string_view two =
      kStream.substr(0, kStream.find("data: {\"index\":0,\"content\":\"\""));
  f.recorder->on_body(two, 10 * kMs);
  f.recorder->finish(11 * kMs, true);
  EXPECT_EQ(f.record.error_class, ErrorClass::incomplete_stream);
}

}  // namespace
}  // namespace sb::engine
