#pragma once
// What a server said about one request's time (docs/metrics.md, "Where the time goes"), in
// milliseconds of the server's own clock; a negative value was not reported. Filled by the
// protocol adapters (llama.cpp `timings`, OpenAI `usage.prompt_tokens_details`) and by the
// response headers (TGI's x-*-time), kept in the RequestRecord and written to requests.jsonl.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sb {

// Where a record's server times came from; the first source that reported any time wins.
enum class ServerTimingSource : unsigned char {
  none,
  tgi_headers,       // x-queue-time, x-inference-time, x-validation-time, x-total-time
  llamacpp_timings,  // the last event's timings: prompt_ms, predicted_ms, cache_n
  openai_usage,      // usage.prompt_tokens_details.cached_tokens (no times)
  anthropic_usage,   // usage.cache_read_input_tokens (no times)
};
inline constexpr std::size_t kServerTimingSourceCount = 5;  // the values above

// "none", "tgi_headers", "llamacpp_timings", "openai_usage", "anthropic_usage" (as written to
// requests.jsonl).
constexpr std::string_view to_string(ServerTimingSource s) {
  switch (s) {
    case ServerTimingSource::tgi_headers:
      return "tgi_headers";
    case ServerTimingSource::llamacpp_timings:
      return "llamacpp_timings";
    case ServerTimingSource::openai_usage:
      return "openai_usage";
    case ServerTimingSource::anthropic_usage:
      return "anthropic_usage";
    case ServerTimingSource::none:
      break;
  }
  return "none";
}

inline std::optional<ServerTimingSource> server_timing_source_from_string(std::string_view s) {
  for (auto v : {ServerTimingSource::none, ServerTimingSource::tgi_headers,
                 ServerTimingSource::llamacpp_timings, ServerTimingSource::openai_usage,
                 ServerTimingSource::anthropic_usage})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

struct ServerTimes {
  double queue_ms = -1;        // waiting for a batch slot (TGI x-queue-time)
  double prefill_ms = -1;      // prompt processing (llama.cpp prompt_ms)
  double decode_ms = -1;       // token generation (llama.cpp predicted_ms)
  double inference_ms = -1;    // prefill + decode where a server reports only their sum (TGI)
  double total_ms = -1;        // receipt to last byte as the server saw it (TGI x-total-time)
  int64_t cached_tokens = -1;  // prompt tokens served from the server's prefix cache
  ServerTimingSource source = ServerTimingSource::none;

  bool any() const {
    return queue_ms >= 0 || prefill_ms >= 0 || decode_ms >= 0 || inference_ms >= 0 ||
           total_ms >= 0 || cached_tokens >= 0;
  }
  // Prefill + decode: inference_ms when reported, else the sum of both when both are; < 0 else.
  double compute_ms() const {
    if (inference_ms >= 0) return inference_ms;
    return prefill_ms >= 0 && decode_ms >= 0 ? prefill_ms + decode_ms : -1;
  }
  // Fields reported in `o` replace this one's; the source is the first that reported a time
  // (a usage-only source, which reports cached tokens alone, gives way to one with times).
  void merge(const ServerTimes& o) {
    auto take = [](double& mine, double theirs) {
      if (theirs >= 0) mine = theirs;
    };
    take(queue_ms, o.queue_ms);
    take(prefill_ms, o.prefill_ms);
    take(decode_ms, o.decode_ms);
    take(inference_ms, o.inference_ms);
    take(total_ms, o.total_ms);
    if (o.cached_tokens >= 0) cached_tokens = o.cached_tokens;
    if (source == ServerTimingSource::none || source == ServerTimingSource::openai_usage ||
        source == ServerTimingSource::anthropic_usage)
      if (o.source != ServerTimingSource::none) source = o.source;
  }
};

}  // namespace sb
