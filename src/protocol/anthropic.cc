// Anthropic Messages API, POST /v1/messages (docs.anthropic.com: Messages, Streaming
// Messages, Errors; anthropics/anthropic-sdk-python src/anthropic/types/).
//
// Request: {"model"?, "max_tokens", "messages", "system"?, "stream"}. messages: one user
// message with the prompt text, or Prompt::messages_json with its "system" messages (string
// content) taken out into the top-level "system" (the API has no system role), joined by a
// blank line. The headers (x-api-key, anthropic-version) come from api_headers (adapter.cc).
// ignore_eos is sent only when asked for (the real API rejects unknown fields).
//
// Stream: named SSE events whose data carries the same name in "type"; no [DONE].
// - message_start {"message": {..., "usage": {"input_tokens", "cache_read_input_tokens",
//   "cache_creation_input_tokens", "output_tokens"}}}: the prompt's count is the sum of the
//   three input counts (input_tokens leaves out what the cache read or wrote), cached tokens
//   = cache_read_input_tokens; its output_tokens is a running count and is not taken;
// - content_block_start {"content_block": {"type": "text", "text": ""}}: text only if any;
// - content_block_delta {"delta": {"type": "text_delta", "text"}}: output text;
//   {"type": "thinking_delta", "thinking"}: reasoning text; signature_delta,
//   input_json_delta, citations_delta: nothing counted;
// - message_delta {"delta": {"stop_reason", ...}, "usage": {"output_tokens", ...}}: the
//   output count (cumulative: the last one is the request's), and input counts when given;
// - message_stop: the last event; content_block_stop, ping: nothing;
// - error {"error": {"type", "message"}}: overloaded_error -> overloaded, rate_limit_error ->
//   rate_limited, api_error -> server_error, invalid_request_error -> validation, ...
// Non-streamed body: {"type": "message", "content": [{"type": "text", "text"} |
// {"type": "thinking", "thinking"} | ...], "usage": {...}}, or {"type": "error", "error"}.
#include "common/error_clip.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

// Sent when the prompt names no output length: the API requires max_tokens, and 4096 is
// within every current model's output limit.
constexpr int64_t kDefaultMaxTokens = 4096;

std::string_view str(value v) {
  return opt_string(v).value_or(std::string_view());
}

// docs.anthropic.com/en/api/errors: the error types and the HTTP status each goes with.
ErrorClass anthropic_error_class(std::string_view type) {
  if (type == "overloaded_error") return ErrorClass::overloaded;       // 529
  if (type == "rate_limit_error") return ErrorClass::rate_limited;     // 429
  if (type == "invalid_request_error") return ErrorClass::validation;  // 400
  if (type == "api_error") return ErrorClass::server_error;            // 500
  if (type == "timeout_error") return ErrorClass::timeout;             // 504
  if (type == "authentication_error" || type == "permission_error" ||  // 401, 403
      type == "not_found_error" || type == "request_too_large" ||      // 404, 413
      type == "billing_error")                                         // 402
    return ErrorClass::client_error;
  return error_class_from_code(std::nullopt, "", type);
}

void decode_error(value error, Decoded& d) {
  std::string_view type, message;
  if (error.type() == json_type::object) {
    for (auto f : error.get_object()) {
      const simdjson::ondemand::raw_json_string k = f.key();
      if (k == "type")
        type = str(f.value());
      else if (k == "message")
        message = str(f.value());
    }
  }
  d.error = anthropic_error_class(type);
  d.error_message = clip_error(message.empty() ? std::string_view("(no message)") : message);
}

// usage of message_start, message_delta or a whole body. `output`: take output_tokens
// (not message_start's running count).
void decode_usage(object usage, Decoded& d, bool output) {
  std::optional<int64_t> input, cache_read, cache_write;
  for (auto f : usage) {
    const simdjson::ondemand::raw_json_string k = f.key();
    if (k == "output_tokens") {
      if (output) d.completion_tokens = opt_int(f.value());
    } else if (k == "input_tokens") {
      input = opt_int(f.value());
    } else if (k == "cache_read_input_tokens") {
      cache_read = opt_int(f.value());
    } else if (k == "cache_creation_input_tokens") {
      cache_write = opt_int(f.value());
    }
  }
  if (input) d.prompt_tokens = *input + cache_read.value_or(0) + cache_write.value_or(0);
  if (cache_read && *cache_read >= 0) {
    ServerTimes t;
    t.cached_tokens = *cache_read;
    t.source = ServerTimingSource::anthropic_usage;
    d.server_timings = t;
  }
}

// A content block or a delta: {"type", "text" | "thinking", ...}: text to `text`, thinking
// to d.reasoning_chars.
void decode_block(object block, Decoded& d, std::string_view& text) {
  std::string_view type, body, thinking;
  for (auto f : block) {
    const simdjson::ondemand::raw_json_string k = f.key();
    if (k == "type")
      type = str(f.value());
    else if (k == "text")
      body = str(f.value());
    else if (k == "thinking")
      thinking = str(f.value());
  }
  if (type == "text" || type == "text_delta") text = body;
  if (type == "thinking" || type == "thinking_delta")
    d.reasoning_chars += static_cast<uint32_t>(thinking.size());
}

class AnthropicAdapter final : public Adapter {
 public:
  explicit AnthropicAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override { return "/v1/messages"; }

  std::string build_body(const Prompt& prompt) const override {
    nlohmann::json body = nlohmann::json::object();
    if (!config_.model.empty()) body["model"] = config_.model;
    body["max_tokens"] = prompt.max_tokens > 0 ? prompt.max_tokens : kDefaultMaxTokens;
    nlohmann::json messages = nlohmann::json::array();
    std::string system;
    for (auto& m : chat_messages(prompt)) {
      const auto role = m.find("role");
      const auto content = m.find("content");
      if (m.is_object() && role != m.end() && *role == "system" && content != m.end() &&
          content->is_string()) {
        if (!system.empty()) system += "\n\n";
        system += content->get<std::string>();
      } else {
        messages.push_back(std::move(m));
      }
    }
    body["messages"] = std::move(messages);
    if (!system.empty()) body["system"] = system;
    body["stream"] = config_.stream;
    if (config_.ignore_eos) body["ignore_eos"] = true;
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    Decoded d;
    std::string_view text;
    bool error_event = false;
    try {
      simdjson::ondemand::document& doc = decoder_.parse(data);
      if (doc.type() != json_type::object) return not_an_object(data);
      for (auto field : doc.get_object()) {
        const simdjson::ondemand::raw_json_string key = field.key();
        value v = field.value();
        if (key == "type") {
          const std::string_view type = str(v);
          d.final = type == "message_stop";
          error_event = type == "error";
        } else if (key == "message") {  // message_start
          if (v.type() != json_type::object) continue;
          for (auto f : v.get_object()) {
            const simdjson::ondemand::raw_json_string k = f.key();
            if (k == "usage" && f.value().type() == json_type::object)
              decode_usage(f.value().get_object(), d, false);
          }
        } else if (key == "delta" || key == "content_block") {
          if (v.type() == json_type::object) decode_block(v.get_object(), d, text);
        } else if (key == "usage") {  // message_delta
          if (v.type() == json_type::object) decode_usage(v.get_object(), d, true);
        } else if (key == "error") {
          decode_error(v, d);
        }
      }
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
      return d;
    }
    if (error_event && d.error == ErrorClass::ok) {  // an error event without its object
      d.error = ErrorClass::server_error;
      d.error_message = "(no message)";
    }
    d.text = text;
    d.content_chars = static_cast<uint32_t>(text.size());
    d.text_event = d.content_chars > 0 || d.reasoning_chars > 0;
    return d;
  }

  Decoded decode_body(std::string_view body) override {
    Decoded d;
    text_.clear();
    try {
      simdjson::ondemand::document& doc = decoder_.parse(body);
      if (doc.type() != json_type::object) return not_an_object(body);
      for (auto field : doc.get_object()) {
        const simdjson::ondemand::raw_json_string key = field.key();
        value v = field.value();
        if (key == "content") {
          if (v.type() != json_type::array) continue;
          for (auto block : v.get_array()) {
            if (block.type() != json_type::object) continue;
            std::string_view text;
            decode_block(block.get_object(), d, text);
            text_.append(text);
          }
        } else if (key == "usage") {
          if (v.type() == json_type::object) decode_usage(v.get_object(), d, true);
        } else if (key == "error") {
          decode_error(v, d);
        }
      }
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
      return d;
    }
    finish_whole_body(d, text_);
    return d;
  }

 private:
  AdapterConfig config_;
  JsonDecoder decoder_;
  std::string text_;  // a whole body's output text (Decoded::text views it)
};

}  // namespace

std::unique_ptr<Adapter> make_anthropic_adapter(const AdapterConfig& config) {
  return std::make_unique<AnthropicAdapter>(config);
}

}  // namespace sb::protocol
