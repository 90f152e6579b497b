// SSE parse rate on one core for a realistic OpenAI chat completion stream
// (vLLM's chunk layout: id, object, created, model, choices[0].delta, then a
// usage chunk and [DONE]). Reported as events/s and bytes/s. Target: >= 5 M events/s.
#include <benchmark/benchmark.h>

#include <string>
#include <string_view>

#include "protocol/adapter.h"
#include "sse/parser.h"

namespace {

// One stream of `tokens` content chunks, as a server sends it.
std::string openai_chat_stream(int tokens) {
  const std::string head =
      "data: {\"id\":\"chatcmpl-8d1f0c2b7a3e4f5a9b6c\",\"object\":\"chat.completion.chunk\","
      "\"created\":1733140000,\"model\":\"meta-llama/"
      "Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,"
      "\"delta\":";
  std::string s = head +
                  "{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
                  "\"finish_reason\":null}]}\n\n";
  const char* words[] = {" the", " quick", " brown", " fox", " jumps", " over", " lazy", " dog"};
  for (int i = 0; i < tokens; ++i) {
    s += head + "{\"content\":\"" + words[i % 8] +
         "\"},\"logprobs\":null,\"finish_reason\":" + (i + 1 == tokens ? "\"stop\"" : "null") +
         "}]}\n\n";
  }
  s += "data: {\"id\":\"chatcmpl-8d1f0c2b7a3e4f5a9b6c\",\"object\":\"chat.completion.chunk\","
       "\"created\":1733140000,\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[],"
       "\"usage\":{\"prompt_tokens\":64,\"total_tokens\":320,\"completion_tokens\":256}}\n\n";
  s += "data: [DONE]\n\n";
  return s;
}

// Feeds the stream in reads of `state.range(0)` bytes (0: the whole stream at once).
void BM_SseOpenAiChat(benchmark::State& state) {
  const std::string stream = openai_chat_stream(256);
  const std::size_t read_bytes =
      state.range(0) > 0 ? static_cast<std::size_t>(state.range(0)) : stream.size();
  sb::sse::Parser parser;
  uint64_t events = 0;
  uint64_t data_bytes = 0;
  for (auto _ : state) {
    std::string_view rest = stream;
    while (!rest.empty()) {
      const std::size_t n = std::min(read_bytes, rest.size());
      parser.feed(rest.substr(0, n), [&](const sb::sse::Event& e) {
        ++events;
        data_bytes += e.data.size();
      });
      rest.remove_prefix(n);
    }
  }
  benchmark::DoNotOptimize(data_bytes);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["event_bytes"] = static_cast<double>(stream.size()) /
                                  static_cast<double>(parser.events() / state.iterations());
}
BENCHMARK(BM_SseOpenAiChat)->Arg(0)->Arg(16384)->Arg(4096)->Arg(1500)->Arg(100);

// The client's whole per-event hot path: SSE parsing plus the openai-chat
// adapter's JSON decoding (simdjson on demand) of every event.
void BM_SseAndDecodeOpenAiChat(benchmark::State& state) {
  const std::string stream = openai_chat_stream(256);
  sb::protocol::AdapterConfig config;
  config.api = sb::protocol::Api::openai_chat;
  auto adapter = sb::protocol::make_adapter(config);
  sb::sse::Parser parser;
  uint64_t events = 0;
  uint64_t text_events = 0;
  for (auto _ : state) {
    parser.feed(stream, [&](const sb::sse::Event& e) {
      ++events;
      text_events += adapter->decode_event(e.data).text_event ? 1 : 0;
    });
  }
  benchmark::DoNotOptimize(text_events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SseAndDecodeOpenAiChat);

}  // namespace

BENCHMARK_MAIN();
