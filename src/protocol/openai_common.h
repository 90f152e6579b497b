#pragma once
// Decoding shared by the OpenAI completions, chat and Responses adapters (internal).
#include <optional>
#include <string>
#include <string_view>

#include "protocol/json_decoder.h"

namespace sb::protocol {

// Where a choice keeps its text.
enum class ChoiceText {
  text,     // completions: choices[0].text
  delta,    // chat stream: choices[0].delta.{content, reasoning_content | reasoning}
  message,  // chat body: choices[0].message.{content, reasoning_content | reasoning}
};

// Decodes one OpenAI-style payload (a stream chunk or a whole body) into `d`:
// - "[DONE]" -> final;
// - choices (array, null or absent; only choices[0] is read) -> text;
//   a chunk without text (role-only, empty content, finish_reason only) is not a text event;
// - usage {prompt_tokens, completion_tokens, completion_tokens_details: {reasoning_tokens}}
//   (object or null) -> counts;
// - {"error": {"message", "type", "code"}} (OpenAI, newer vLLM) or
//   {"object": "error", "message", "type", "code"} (older vLLM) -> error class by code.
// `whole_body` marks a non-streamed response, which is final by itself.
Decoded decode_openai(JsonDecoder& decoder, std::string_view json, ChoiceText where,
                      bool whole_body);

// The key names of a usage object: chat and completions' or the Responses API's.
struct UsageKeys {
  std::string_view output, input, output_details, input_details;
};
inline constexpr UsageKeys kChatUsageKeys{"completion_tokens", "prompt_tokens",
                                          "completion_tokens_details", "prompt_tokens_details"};
inline constexpr UsageKeys kResponsesUsageKeys{"output_tokens", "input_tokens",
                                               "output_tokens_details", "input_tokens_details"};

// A usage object into `d`: output -> completion_tokens, input -> prompt_tokens,
// output_details.reasoning_tokens -> reasoning_tokens, input_details.cached_tokens (>= 0) ->
// server_timings' cached_tokens. Details that are null or absent (vLLM, others) are skipped.
void decode_openai_usage(simdjson::ondemand::object usage, Decoded& d, const UsageKeys& keys);

// The body of a plain prompt (Prompt::text, no messages_json) for completions (`chat` false:
// "prompt") or chat completions (one user message), written without a JSON tree: the same
// bytes as the tree built from these fields and add_openai_fields() dumped by finish_body()
// (keys in its sorted order, no spaces, invalid UTF-8 replaced). nullopt when the tree is
// needed: messages_json set, or an extra_body with members to merge.
std::optional<std::string> plain_openai_body(const AdapterConfig& config, const Prompt& prompt,
                                             bool chat);

// Common request fields: model (when non-empty), stream (+ include_usage),
// ignore_eos (vLLM and SGLang accept it; OpenAI rejects unknown fields only for some models).
void add_openai_fields(nlohmann::json& body, const AdapterConfig& config);

}  // namespace sb::protocol
