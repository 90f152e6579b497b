#pragma once
// Shared pieces of the protocol adapters (internal to src/protocol/):
// a reusable simdjson on-demand decoder, JSON helpers for the hot path, error
// classification of in-stream error objects, and request-body helpers.
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protocol/adapter.h"

namespace sb::protocol {

// Object keys are compared raw (simdjson raw_json_string == "name"): a key
// spelled with JSON escapes does not match; no server writes its keys so.
//
// One simdjson on-demand parser and one padded input buffer, both reused for
// every payload: no allocation per event once they have grown to the largest
// payload. String views it hands out live until the next parse().
class JsonDecoder {
 public:
  // Parses `json`; throws simdjson::simdjson_error when it is not JSON.
  simdjson::ondemand::document& parse(std::string_view json);
  // Where the string `text` (a value decoded from `raw_token`, the string's raw_json_token() in
  // the last parse) lies verbatim in that parse's input: its offset when the raw string holds
  // exactly `text` (no escapes), else -1.
  int64_t verbatim_offset(std::string_view raw_token, std::string_view text) const;

 private:
  simdjson::ondemand::parser parser_;
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;  // bytes of the last parse's input
  simdjson::ondemand::document doc_;
};

// SSE payload "[DONE]" (OpenAI's end of stream), surrounding whitespace allowed.
bool is_done_marker(std::string_view data);

// Value helpers: a JSON null (or another type where noted) gives nullopt.
std::optional<std::string_view> opt_string(simdjson::ondemand::value v);
std::optional<int64_t> opt_int(simdjson::ondemand::value v);  // integers, or floats truncated

// Error class of an in-stream OpenAI-style error: by numeric HTTP-like code when
// there is one (error_class_from_status), else by keywords in code/type
// ("rate_limit", "overload", "invalid"/"validation"/"BadRequest", "timeout"),
// else server_error (an error reported after a 200 is the server's failure).
ErrorClass error_class_from_code(std::optional<int64_t> code, std::string_view code_text,
                                 std::string_view type);

// Sets `d` to a malformed-JSON error carrying simdjson's reason.
void set_malformed(Decoded& d, const simdjson::simdjson_error& e);

// A malformed error for a payload that is JSON but not an object (names what came).
Decoded not_an_object(std::string_view json);

// Ends a whole (non-streamed) body's decoding: `text` is its output text, which `d` views.
void finish_whole_body(Decoded& d, std::string_view text);

// Serialises a request body: extra_body merged (RFC 7386) last; invalid UTF-8
// in prompts is replaced rather than thrown on.
std::string finish_body(nlohmann::json body, const nlohmann::json& extra_body);

// Throws sb::Error (usage) unless extra_body is null or an object.
void check_extra_body(const nlohmann::json& extra_body);

// The chat messages of a prompt: Prompt::messages_json parsed (throws sb::Error (usage)
// unless it is a JSON array), else one {"role": "user", "content": text}.
nlohmann::json chat_messages(const Prompt& prompt);

std::unique_ptr<Adapter> make_tgi_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_openai_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_openai_chat_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_generic_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_llamacpp_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_openai_responses_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_anthropic_adapter(const AdapterConfig& config);
std::unique_ptr<Adapter> make_pooling_adapter(const AdapterConfig& config);  // embeddings, rerank

}  // namespace sb::protocol
