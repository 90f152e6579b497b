#pragma once
// Protocol adapters: one per API (docs/architecture.md). An adapter turns a prompt into
// request bytes, and turns the response (SSE event payloads when streaming, the
// whole body otherwise) into text-bearing events, usage and errors.
// Adapters are pure: no I/O, no clock. The engine timestamps what they report.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error_class.h"
#include "common/server_times.h"

namespace sb::protocol {

enum class Api {
  tgi,
  openai,
  openai_chat,
  generic,
  llamacpp,
  openai_responses,
  anthropic,
  embeddings,
  rerank
};
// "tgi", "openai", "openai-chat", "generic", "llamacpp", "openai-responses", "anthropic",
// "embeddings", "rerank"
std::optional<Api> api_from_string(std::string_view s);
std::string_view to_string(Api api);
// The non-generative APIs (embeddings, rerank): never streamed, no output tokens; a request
// carries Prompt::inputs and the response one item per input (Decoded::items).
inline bool is_pooling(Api api) {
  return api == Api::embeddings || api == Api::rerank;
}
// The APIs a request priority (--priority-mix) reaches a server by: vLLM's body "priority"
// (openai, openai-chat) and the x-priority headers (those and tgi). The others have none.
inline bool sends_priority(Api api) {
  return api == Api::openai || api == Api::openai_chat || api == Api::tgi;
}
// The names above for a message, "tgi, openai, ... or anthropic"; without "generic" when
// `with_generic` is false (what a plan or a simulator cannot take).
std::string api_choices(bool with_generic = true);

// The request headers the API itself asks for, as "Name: value\r\n" lines: the API key
// (none when empty) as "Authorization: Bearer KEY", or for Api::anthropic as "x-api-key: KEY"
// plus "anthropic-version: 2023-06-01" (left out when `user_headers`, the -H headers, name
// anthropic-version: theirs is sent instead). The key is a secret: these lines are never
// written anywhere (they go only into the request head).
std::string api_headers(Api api, std::string_view api_key,
                        const std::vector<std::pair<std::string, std::string>>& user_headers);

struct AdapterConfig {
  Api api = Api::openai;
  bool stream = true;
  std::string model;          // "model" field for OpenAI and Anthropic APIs (empty: omitted)
  nlohmann::json extra_body;  // object merged (RFC 7386 merge patch) into every request body
  bool ignore_eos = false;    // vLLM/TGI-style ignore_eos where the API has it
  // openai-chat only: send the length as "max_completion_tokens" instead of
  // "max_tokens" (OpenAI reasoning models reject max_tokens; vLLM accepts both).
  bool max_completion_tokens = false;
  // --api generic only:
  std::string generic_template;  // JSON text with {{prompt}}, {{max_tokens}}, {{model}}
  // JSON pointer to the text in one streamed event, e.g. /token/text
  std::string generic_stream_pointer;
  std::string generic_body_pointer;  // JSON pointer to the text in a whole response
  // Optional: JSON pointer to a value marking a stream's last event when it is
  // true, a non-empty string or a non-zero number (e.g. /stop for llama.cpp's
  // /completion, /generated_text for TGI). Without it only "[DONE]" is final.
  std::string generic_final_pointer;
  // Optional: JSON pointer to the output token count in a stream event (a number, e.g.
  // /tokens_predicted) or to a usage object ({completion_tokens, prompt_tokens}).
  std::string generic_usage_pointer;
};

// One prompt to send. Exactly one of prompt / messages_json is used:
// chat APIs wrap a plain prompt in a single user message.
struct Prompt {
  std::string text;
  std::string messages_json;  // optional: a JSON array of chat messages, sent as-is
  int64_t max_tokens = 0;     // output length to request; <= 0 leaves it to the server
  // --priority-mix: the request's numeric priority (lower = served earlier), sent as vLLM's
  // top-level "priority" by the openai and openai-chat adapters; the other APIs have no body
  // field for it (TGI's parameters have none) and send only the headers (engine). Unset: none.
  std::optional<int64_t> priority;
  // --api embeddings / rerank: the request's inputs, one per item: texts, or image URLs
  // (data: URLs with base64 bytes, or http(s)) when `image_inputs`. rerank scores each
  // against `text`, the query. Unused by the generative APIs.
  std::vector<std::string> inputs;
  bool image_inputs = false;
};

// What one SSE event (or a whole non-streamed body) contributed.
struct Decoded {
  uint32_t content_chars = 0;    // bytes of output text in this event
  uint32_t reasoning_chars = 0;  // bytes of reasoning text (reasoning_content, thinking, ...)
  bool text_event = false;       // carries output or reasoning text (moves t_first/t_last)
  uint32_t tokens = 0;           // tokens this event is known to carry (TGI: 1), 0 if unknown
  bool final = false;            // the stream's last meaningful event (TGI generated_text, [DONE])
  // usage.completion_tokens, or TGI details.generated_tokens
  std::optional<int64_t> completion_tokens;
  bool completion_tokens_from_details = false;  // true when the count came from TGI details
  std::optional<int64_t> prompt_tokens;         // usage.prompt_tokens / details.input_length
  // Reasoning tokens the usage reported (chat completion_tokens_details.reasoning_tokens,
  // Responses output_tokens_details.reasoning_tokens); part of completion_tokens.
  std::optional<int64_t> reasoning_tokens;
  ErrorClass error = ErrorClass::ok;  // in-stream error (TGI error event, OpenAI error object)
  std::string error_message;          // its message (first 512 bytes)
  std::string_view text;  // the output text (valid until the next decode call; may be empty)
  // Where `text` lies verbatim in the decoded payload (a JSON string without escapes: its bytes
  // from payload[text_offset]), or -1; protocol::EventMemo learns from it (event_memo.h).
  int64_t text_offset = -1;
  std::optional<ServerTimes> server_timings;  // reported in this event (llama.cpp's last, usage)
  // embeddings / rerank: the items the response holds (embeddings, scored documents).
  std::optional<int64_t> items;
};

class Adapter {
 public:
  virtual ~Adapter() = default;
  virtual std::string_view default_path() const = 0;  // e.g. "/v1/chat/completions"
  // The JSON request body for one prompt.
  virtual std::string build_body(const Prompt& prompt) const = 0;
  // Decodes the payload (the joined data lines) of one SSE event.
  virtual Decoded decode_event(std::string_view data) = 0;
  // Decodes a whole non-streamed 2xx response body.
  virtual Decoded decode_body(std::string_view body) = 0;
};

// Throws sb::Error (usage) on a bad config, e.g. a generic template without {{prompt}}.
std::unique_ptr<Adapter> make_adapter(const AdapterConfig& config);

}  // namespace sb::protocol
