#pragma once
// One request's timeline and outcome, exactly as docs/metrics.md defines it.
// Times are nanoseconds since the run's start (one steady_clock, taken in the
// worker that owns the request); kNoTime marks an instant that never happened.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/error_class.h"
#include "common/server_times.h"
#include "quality/request_quality.h"

namespace sb::metrics {

// Where output_tokens came from, best first.
enum class TokenSource : unsigned char {
  usage,      // usage.completion_tokens reported by the server
  details,    // TGI details.generated_tokens
  tokenizer,  // counted with the configured tokenizer
  estimate,   // estimated from text length (characters / 4) or event count
  none,       // no output
};
// "usage", "details", "tokenizer", "estimate", "none" (the names written to requests.jsonl).
std::string_view to_string(TokenSource s);
// Inverse of to_string; nullopt for an unknown name.
std::optional<TokenSource> token_source_from_string(std::string_view name);

inline constexpr int64_t kNoTime = INT64_MIN;

struct RequestRecord {
  uint64_t id = 0;
  std::string request_class = "default";  // workload class (chat, long, ...)
  // --priority-mix: the request's priority class and its numeric priority (lower = served
  // earlier); an empty class: the run had no priority classes (priority then 0, unsent).
  std::string priority_class;
  int64_t priority = 0;
  bool warmup = false;  // warm-up requests are recorded but not measured
  int status = 0;       // HTTP status; 0 when no response arrived
  ErrorClass error_class = ErrorClass::ok;
  std::string error;  // message, or the first 512 bytes of the error body

  // Nanoseconds since run start.
  int64_t t_sched_ns = kNoTime;          // intended send time (schedule, or slot freed)
  int64_t t_send_ns = kNoTime;           // first request byte written
  int64_t t_first_ns = kNoTime;          // first event carrying output or reasoning text
  int64_t t_first_content_ns = kNoTime;  // first event carrying output (non-reasoning) text
  int64_t t_last_ns = kNoTime;           // last text-bearing event
  int64_t t_end_ns = kNoTime;            // the request finished, whatever its outcome

  // Sessions (--session-concurrency, docs/workloads.md): the session this request is a turn of
  // (sessions counted from 0 in the measured phase) and the turn's index in it (0: the first);
  // -1 outside sessions. session_turns: the turns planned for that session (0 outside).
  int64_t session_id = -1;
  int32_t turn = -1;
  int32_t session_turns = 0;
  // Sessions: the input tokens of this turn that repeat the previous turns' prompts and
  // answers (workload::Conversation::history_tokens), the ideal prefix-cache hit; -1 outside.
  int64_t history_tokens = -1;

  int64_t input_tokens = 0;
  // --api embeddings / rerank: the items the request sent (inputs to embed, documents to
  // score), the response checked to hold as many; -1 on the generative APIs.
  int64_t items = -1;
  int64_t output_tokens = 0;
  TokenSource output_tokens_source = TokenSource::none;
  // A second, independent count (e.g. the estimate when usage was reported), -1 if none.
  int64_t output_tokens_alt = -1;
  TokenSource output_tokens_alt_source = TokenSource::none;
  // Reasoning tokens of this request (docs/metrics.md), counted inside output_tokens as
  // OpenAI's completion_tokens counts them: the server's usage (chat
  // completion_tokens_details.reasoning_tokens, Responses output_tokens_details.reasoning_tokens)
  // when it reported a positive count, else estimated from the reasoning text (bytes / 4);
  // -1 (null) when the response had no reasoning. Source usage, estimate, or none with -1.
  int64_t reasoning_tokens = -1;
  TokenSource reasoning_tokens_source = TokenSource::none;

  // The generated content text (reasoning excluded), kept only when the run asks for it
  // (EngineConfig::keep_output_text: quality scoring, exact token counting, --save-outputs).
  std::string output_text;
  // Quality against the work item's reference (src/quality), set when the item had a
  // reference and the request succeeded; null otherwise. Shared and immutable, so unscored
  // records stay small and copies are cheap.
  std::shared_ptr<const quality::RequestQuality> quality;

  // Where the time went (docs/metrics.md): the client's phases of this request, in ms
  // (negative: the phase did not happen, e.g. connect_ms on a reused connection) ...
  struct ClientPhases {
    float pool_wait_ms = -1;     // t_sched to the slot taking the request up (before connect)
    float connect_ms = -1;       // TCP connect (a new connection only)
    float tls_ms = -1;           // TLS handshake (https on a new connection only)
    float write_ms = -1;         // t_send to the whole request written
    float ttfb_ms = -1;          // t_send to the response's first byte (kernel stamp)
    float headers_ms = -1;       // t_send to the end of the response header
    float read_lag_max_ms = -1;  // longest wait of received bytes in the kernel before a read
    bool reused = false;         // sent on a kept-alive connection
  } client;
  // ... and what the server said of it (common/server_times.h).
  ServerTimes server;

  uint32_t events = 0;        // text-bearing events received
  std::vector<float> itl_ms;  // gaps between consecutive text-bearing events (events - 1 values)

  bool ok() const { return error_class == ErrorClass::ok; }

  // Derived metrics (docs/metrics.md), in milliseconds; nullopt when an instant they need is
  // kNoTime. They do not look at ok(): a failed request that streamed text still has a ttft;
  // the run summary decides which requests count.
  std::optional<double> ttft_ms() const;          // t_first - t_send
  std::optional<double> ttft_content_ms() const;  // t_first_content - t_send: TTFO
  // TTFO - TTFT = t_first_content - t_first: the reasoning streamed before the first output
  // text; nullopt unless the request reasoned (reasoning_tokens >= 0) and both instants exist.
  std::optional<double> reasoning_ms() const;
  std::optional<double> e2e_ms() const;            // t_last - t_send; nullopt without a text event
  std::optional<double> scheduled_e2e_ms() const;  // t_last - t_sched
  // (e2e - ttft) / (output_tokens - 1); nullopt unless output_tokens > 1 and both are defined.
  // On a reasoning request ttft is the first reasoning token and output_tokens counts the
  // reasoning tokens: TPOT is the time per generated token, reasoning included.
  std::optional<double> tpot_ms() const;
  std::optional<double> dispatch_delay_ms() const;  // t_send - t_sched
  // e2e - server.total_ms: what the client and the network added; nullopt unless both exist.
  std::optional<double> client_network_ms() const;
};

}  // namespace sb::metrics
