// OpenAI Responses API, POST /v1/responses (platform.openai.com/docs/api-reference/responses
// and .../responses-streaming; openai/openai-python src/openai/types/responses/).
//
// Request: {"model"?, "input", "max_output_tokens"?, "stream", "ignore_eos"?}. input: the
// prompt text, or Prompt::messages_json verbatim (an array of {role, content} items, which
// the API takes as input items). There is no stream_options: a stream always ends with the
// whole response object, usage included. ignore_eos is sent only when asked for (vLLM-style
// servers; OpenAI itself rejects unknown fields).
//
// Stream: named SSE events whose data carries the same name in "type"; no [DONE] (one is
// taken as the end all the same).
// - response.output_text.delta {"delta": text}: output text; response.refusal.delta too;
// - response.reasoning_text.delta, response.reasoning_summary_text.delta {"delta"}: reasoning
//   text (reasoning_chars, a text event);
// - response.completed and response.incomplete (max_output_tokens reached: a normal end, not
//   an error) {"response": {..., "usage": {"input_tokens", "input_tokens_details":
//   {"cached_tokens"}, "output_tokens", "output_tokens_details": {"reasoning_tokens"}, ...}}}:
//   the last event, with the counts (output_tokens includes the reasoning tokens);
// - response.failed {"response": {"status": "failed", "error": {"code", "message"}}} and
//   {"type": "error", "code", "message", "param"} (some servers nest {"error": {type, code,
//   message}}): errors, classed by code or type (rate_limit_exceeded -> rate_limited,
//   server_error -> server_error, invalid_* -> validation, ...: error_class_from_code);
// - everything else (response.created, .in_progress, .output_item.*, .content_part.*,
//   *.done, tool-call events) carries nothing counted: .done events repeat the text.
// Non-streamed body: the response object; output[] items of type "message" with content[]
// parts "output_text" {text} (or "refusal" {refusal}), "reasoning" items with content[]
// "reasoning_text" and summary[] "summary_text" (reasoning text); usage as above; status
// "failed" or a non-null error is an error.
#include "common/error_clip.h"
#include "protocol/json_decoder.h"
#include "protocol/openai_common.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

std::string_view str(value v) {
  return opt_string(v).value_or(std::string_view());
}

// An error object: {"code", "message", "type"} (code a string, a number or null).
struct ErrorInfo {
  bool present = false;
  std::string_view code_text, type, message;
  std::optional<int64_t> code;

  void read(simdjson::ondemand::raw_json_string key, value v) {
    if (key == "code") {
      if (v.type() == json_type::number)
        code = opt_int(v);
      else
        code_text = str(v);
    } else if (key == "type") {
      type = str(v);
    } else if (key == "message") {
      message = str(v);
    }
  }
  void read_object(value v) {
    if (v.type() != json_type::object) return;
    present = true;
    for (auto f : v.get_object()) read(f.key(), f.value());
  }
  void apply(Decoded& d, std::string_view fallback) const {
    d.error = error_class_from_code(code, code_text, type);
    d.error_message = clip_error(message.empty() ? fallback : message);
  }
};

// Text of the parts of an output item's content[] (or a reasoning item's summary[]):
// "output_text" {text} and "refusal" {refusal} to `text`, "reasoning_text" and
// "summary_text" {text} to d.reasoning_chars.
void decode_parts(simdjson::ondemand::array parts, Decoded& d, std::string& text) {
  for (auto part : parts) {
    if (part.type() != json_type::object) continue;
    std::string_view type, body, refusal;
    for (auto f : part.get_object()) {
      const simdjson::ondemand::raw_json_string k = f.key();
      if (k == "type")
        type = str(f.value());
      else if (k == "text")
        body = str(f.value());
      else if (k == "refusal")
        refusal = str(f.value());
    }
    if (type == "output_text")
      text.append(body);
    else if (type == "refusal")
      text.append(refusal);
    else if (type == "reasoning_text" || type == "summary_text")
      d.reasoning_chars += static_cast<uint32_t>(body.size());
  }
}

void decode_output(simdjson::ondemand::array items, Decoded& d, std::string& text) {
  for (auto item : items) {
    if (item.type() != json_type::object) continue;
    for (auto f : item.get_object()) {
      const simdjson::ondemand::raw_json_string k = f.key();
      if (k != "content" && k != "summary") continue;
      value v = f.value();
      if (v.type() == json_type::array) decode_parts(v.get_array(), d, text);
    }
  }
}

// The response object (a whole body, or the "response" of a lifecycle event): status,
// error, usage, and (`text` non-null: a whole body) the output's text.
struct ResponseInfo {
  std::string_view status;
  ErrorInfo error;
};

void decode_response(object response, Decoded& d, ResponseInfo& info, std::string* text) {
  for (auto field : response) {
    const simdjson::ondemand::raw_json_string key = field.key();
    value v = field.value();
    if (key == "status") {
      info.status = str(v);
    } else if (key == "error") {
      info.error.read_object(v);
    } else if (key == "usage") {
      if (v.type() == json_type::object)
        decode_openai_usage(v.get_object(), d, kResponsesUsageKeys);
    } else if (key == "output" && text) {
      if (v.type() == json_type::array) decode_output(v.get_array(), d, *text);
    }
  }
}

class OpenAiResponsesAdapter final : public Adapter {
 public:
  explicit OpenAiResponsesAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override { return "/v1/responses"; }

  std::string build_body(const Prompt& prompt) const override {
    nlohmann::json body = nlohmann::json::object();
    if (!config_.model.empty()) body["model"] = config_.model;
    if (prompt.messages_json.empty())
      body["input"] = prompt.text;
    else
      body["input"] = chat_messages(prompt);
    if (prompt.max_tokens > 0) body["max_output_tokens"] = prompt.max_tokens;
    body["stream"] = config_.stream;
    if (config_.ignore_eos) body["ignore_eos"] = true;
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    Decoded d;
    if (is_done_marker(data)) {
      d.final = true;
      return d;
    }
    try {
      simdjson::ondemand::document& doc = decoder_.parse(data);
      if (doc.type() != json_type::object) return not_an_object(data);
      std::string_view type, delta;
      ResponseInfo response;
      ErrorInfo error;  // a "type": "error" event's own fields, or its nested "error"
      for (auto field : doc.get_object()) {
        const simdjson::ondemand::raw_json_string key = field.key();
        value v = field.value();
        if (key == "type") {
          type = str(v);
        } else if (key == "delta") {
          delta = str(v);
        } else if (key == "response") {
          if (v.type() == json_type::object) decode_response(v.get_object(), d, response, nullptr);
        } else if (key == "error") {
          error.read_object(v);
        } else if (key == "code" || key == "message") {
          error.read(key, v);
        }
      }
      if (type == "response.output_text.delta" || type == "response.refusal.delta") {
        d.text = delta;
        d.content_chars = static_cast<uint32_t>(delta.size());
      } else if (type == "response.reasoning_text.delta" ||
                 type == "response.reasoning_summary_text.delta") {
        d.reasoning_chars = static_cast<uint32_t>(delta.size());
      } else if (type == "response.completed" || type == "response.incomplete") {
        d.final = true;
      } else if (type == "response.failed") {
        d.final = true;
        response.error.apply(d, "the response failed (response.failed)");
        if (!response.error.present) d.error = ErrorClass::server_error;
      } else if (type == "error") {
        error.apply(d, "(no message)");
      }
      // Counts only from the last event: response.created and .in_progress carry none.
      if (!d.final) {
        d.completion_tokens.reset();
        d.prompt_tokens.reset();
        d.reasoning_tokens.reset();
        d.server_timings.reset();
      }
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
      return d;
    }
    d.text_event = d.content_chars > 0 || d.reasoning_chars > 0;
    return d;
  }

  Decoded decode_body(std::string_view body) override {
    Decoded d;
    text_.clear();
    try {
      simdjson::ondemand::document& doc = decoder_.parse(body);
      if (doc.type() != json_type::object) return not_an_object(body);
      ResponseInfo response;
      decode_response(doc.get_object(), d, response, &text_);
      if (response.error.present) {
        response.error.apply(d, "the response failed");
      } else if (response.status == "failed") {
        d.error = ErrorClass::server_error;
        d.error_message = "the response failed (status \"failed\")";
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

std::unique_ptr<Adapter> make_openai_responses_adapter(const AdapterConfig& config) {
  return std::make_unique<OpenAiResponsesAdapter>(config);
}

}  // namespace sb::protocol
