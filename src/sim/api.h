#pragma once
// The simulator's wire formats (docs/architecture.md), pure: request bodies in, response
// bytes out. TGI: /generate, /generate_stream (SSE "data:{json}\n\n", no [DONE]).
// OpenAI (vLLM flavour): /v1/completions, /v1/chat/completions ("data: {json}\n\n",
// optional usage chunk with "choices":[], then "data: [DONE]\n\n"). llama.cpp
// (llama-server's native POST /completion, ggml-org/llama.cpp tools/server/server.cpp):
// "data: {json}\n\n" per token with "content" and "stop": false, a last event with
// "stop": true, tokens_predicted, tokens_evaluated and "timings", no [DONE]. OpenAI
// Responses (POST /v1/responses) and Anthropic Messages (POST /v1/messages): named SSE
// events ("event: TYPE\ndata: {\"type\":TYPE,...}\n\n"), sim/api_events.cc.
//
// Token rules (docs/simulator.md): prompt tokens = ceil(UTF-8 bytes / chars_per_token)
// of the prompt (chat: the sum over messages of their text, plus
// chat_tokens_per_message each); completions prompts given as token-id arrays count
// their length. Every output token is one 4-byte word " xyz" from a fixed vocabulary,
// chosen by a seeded hash, so output bytes / 4 == output tokens. Reasoning
// (text.reasoning_length, docs/simulator.md): the first GenRequest::reasoning_tokens of them go
// out as chat delta.reasoning_content, Responses reasoning_text deltas of a reasoning item, or
// an Anthropic thinking block, and the usage counts them inside the output count.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

enum class ApiKind { tgi_generate, tgi_stream, completions, chat, llamacpp, responses, anthropic };
// "tgi_generate", "tgi_generate_stream", "completions", "chat", "llamacpp_completion",
// "responses", "anthropic_messages"
std::string_view to_string(ApiKind a);
inline bool is_tgi(ApiKind a) {
  return a == ApiKind::tgi_generate || a == ApiKind::tgi_stream;
}

struct GenRequest {
  ApiKind api = ApiKind::tgi_generate;
  bool stream = false;
  std::string model;  // echoed in OpenAI responses
  int64_t prompt_tokens = 0;
  int64_t max_new_tokens = 0;
  int64_t output_tokens = 0;  // what will be generated (EOS may stop before max)
  // The first reasoning_tokens of output_tokens are reasoning: min(reasoning_length,
  // output_tokens) on chat, responses and anthropic; 0 on the APIs without a reasoning field.
  int64_t reasoning_tokens = 0;
  bool details = false;        // TGI parameters.details
  bool include_usage = false;  // OpenAI stream_options.include_usage
  bool ignore_eos = false;
  std::optional<uint64_t> seed;  // TGI parameters.seed / OpenAI seed
  // vLLM's top-level "priority" (completions and chat; lower = served earlier). TGI and the
  // other APIs have no such field: the server takes it from the x-priority-value header
  // (generate_handler.cc). Unset: 0, first come, first served.
  std::optional<int64_t> priority;
  uint64_t text_seed = 0;  // selects the output words
  // The prompt's leading KV blocks as the prefix cache knows them (prompt_prefix_blocks of its
  // text: the prompt, or the chat messages' texts in order, each followed by "\n"); empty when
  // prefix caching is off.
  std::vector<uint64_t> prefix_blocks;
};

struct HttpError {
  int status = 400;
  std::string body;  // JSON
  // TGI /generate_stream sends semantic validation errors after HTTP 200, in-stream:
  // data:{"error":..,"error_type":"validation"} (JSON syntax errors stay HTTP 422).
  bool in_stream = false;
  std::string message;
};

// Parses and validates a generation request body for `api` (stream decides
// tgi_generate vs tgi_stream for TGI; OpenAI reads "stream" from the body).
// Errors carry the status and body the real server sends (TGI 422 validation,
// vLLM 400 BadRequestError, OpenAI's and Anthropic's 400 invalid_request_error).
std::variant<GenRequest, HttpError> parse_generate(ApiKind api, std::string_view body,
                                                   const SimConfig& cfg);

// The request header carrying a numeric priority on every API (servebench sends it beside
// x-priority: CLASS; TGI has no body field for one). Lower = served earlier, as vLLM's.
inline constexpr std::string_view kPriorityValueHeader = "x-priority-value";
// Its value: a decimal integer (an optional '-', then digits, nothing else); nullopt otherwise.
std::optional<int64_t> parse_priority_value(std::string_view text);

// Error body for `status` in the API's shape: TGI {"error":..,"error_type":..};
// OpenAI {"object":"error","message":..,"type":..,"param":null,"code":status};
// Responses {"error":{"message","type","param","code"}};
// Anthropic {"type":"error","error":{"type":..,"message":..}}.
std::string error_body(ApiKind api, int status, std::string_view message);
// The status a request the engine would not admit gets: Anthropic 529 (overloaded_error)
// either way; the others 429 when the queue is full (`queue_full`), else 503.
int unadmitted_status(ApiKind api, bool queue_full);
std::string_view tgi_error_type(int status);  // overloaded / validation / generation / ...

int64_t count_text_tokens(std::string_view text, int chars_per_token);

struct Token {
  uint32_t id = 0;
  std::string_view text;          // 4 bytes, e.g. " the"
  double logprob = 0;             // -k / 4096, k in [0, 4096)
  std::string_view logprob_text;  // as fmt's {:.4f} writes it ("-0.1234"), from a table made once
};
Token token_at(uint64_t text_seed, int64_t index);

// llama.cpp's `timings` of one request, from the simulator's own timeline (ms).
struct LlamaTimings {
  int64_t prompt_n = 0;
  double prompt_ms = 0;     // admission to the first token (prefill)
  int64_t predicted_n = 0;  // output tokens
  double predicted_ms = 0;  // first token to the last (decode)
  int64_t cache_n = 0;      // prompt tokens reused from the cache
};

// Builds one request's response bytes. finish reasons: TGI "length" / "eos_token";
// OpenAI "length" / "stop"; Anthropic "max_tokens" / "end_turn"; Responses the status,
// "incomplete" / "completed".
class Formatter {
 public:
  Formatter(const GenRequest& req, std::string id, int64_t created_unix_s);

  // Streaming. stream_start: the chat role-only chunk; the Responses and Anthropic events
  // before the first text (empty for others).
  std::string stream_start() const;
  // The event carrying token `index` (1-based); `last` adds TGI's generated_text and
  // details, or OpenAI's finish_reason.
  std::string token_event(int64_t index, bool last);
  // The same, appended to `out` (no allocation once `out` has grown: the server's path).
  void append_token_event(std::string& out, int64_t index, bool last);
  // After the last token: OpenAI usage chunk (if asked) + [DONE]; TGI: nothing;
  // llama.cpp: the "stop": true event with the timings set by set_timings; Responses and
  // Anthropic: their closing events, the counts in response.completed / message_delta.
  std::string stream_end() const;
  // llama.cpp: the timings its last event (or whole body) reports.
  void set_timings(const LlamaTimings& t) { timings_ = t; }
  // OpenAI completions and chat: usage.prompt_tokens_details.cached_tokens (vLLM with
  // --enable-prompt-tokens-details), set once the engine admitted the request; left out when
  // never set (negative).
  void set_cached_tokens(int64_t n) { cached_tokens_ = n; }
  // TGI in-stream error event: data:{"error":..,"error_type":..}\n\n
  static std::string tgi_stream_error(std::string_view message, std::string_view error_type);

  // Non-streaming body after `n` tokens.
  std::string full_response() const;

  std::string_view finish_reason() const;
  const GenRequest& request() const { return req_; }
  // llama.cpp's last object (no "data: " framing) with `content` as its text.
  std::string llamacpp_final(std::string_view content) const;

 private:
  // sim/api_events.cc: the Responses and Anthropic events and bodies.
  std::string events_start() const;
  void append_event_token(std::string& out, int64_t index, Token t);
  std::string events_end() const;
  std::string events_full_response(std::string_view reasoning, std::string_view text) const;
  std::string openai_usage() const;  // completions and chat usage object
  std::string responses_object(std::string_view status, std::string_view reasoning,
                               std::string_view text) const;
  // Responses: the reasoning item's closing events and the message item's opening events
  // (sequence numbers from `seq`), sent before the first content token.
  std::string responses_reasoning_to_message(int64_t seq) const;
  std::string responses_message_open(int64_t seq, int output_index) const;
  // Anthropic: the thinking block's end and the text block's start (index 1).
  std::string anthropic_thinking_to_text() const;
  std::string item_id() const;            // "msg_<the response id's hex>"
  std::string reasoning_item_id() const;  // "rs_<the response id's hex>"
  bool reasoning_at(int64_t index) const { return index <= req_.reasoning_tokens; }

  GenRequest req_;
  std::string id_;
  int64_t created_;
  std::string model_json_;  // JSON-escaped model name with quotes
  std::string text_;        // TGI, Responses: accumulated output text for the final event
  std::string reasoning_;   // Responses: accumulated reasoning text for its closing events
  LlamaTimings timings_;
  int64_t cached_tokens_ = -1;
};

}  // namespace sb::sim
