// Text Generation Inference (docs/architecture.md), as huggingface/text-generation-inference
// router/src/server.rs and router/src/lib.rs define it.
//
// Request: {"inputs": text, "parameters": {"max_new_tokens": N, "details": true}}.
// `details` is needed for the final event's generated_tokens / input_length.
// TGI's GenerateParameters has no ignore_eos field (only the internal gRPC
// request has ignore_eos_token), so AdapterConfig::ignore_eos is not sent:
// use extra_body for servers that add one. Prompt::messages_json is not used.
//
// Stream events: one token each; a special token (e.g. EOS) counts as a token
// and moves t_last when it has text, but its text is not output text. The last
// event has generated_text (string) and details. Errors arrive in-stream as
// {"error": "..", "error_type": "overloaded"|"validation"|"generation"|"incomplete_generation"}.
#include "common/error_clip.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;

ErrorClass tgi_error_class(std::string_view type) {
  if (type == "overloaded") return ErrorClass::overloaded;
  // TGI answers these with 422 on /generate (router/src/server.rs, From<InferError>).
  if (type == "validation" || type == "template_error" || type == "tool_error" ||
      type == "missing_template_variable")
    return ErrorClass::validation;
  // "incomplete_generation" and newer "incomplete_generation_stream".
  if (type.starts_with("incomplete_generation")) return ErrorClass::incomplete_stream;
  return ErrorClass::server_error;  // "generation" and anything new
}

void decode_details(object details, Decoded& d) {
  for (auto field : details) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "generated_tokens") {
      if (auto n = opt_int(field.value())) {
        d.completion_tokens = *n;
        d.completion_tokens_from_details = true;
      }
    } else if (key == "input_length") {
      d.prompt_tokens = opt_int(field.value());
    }
  }
}

void decode_token(object token, Decoded& d) {
  std::string_view text;
  bool special = false;
  for (auto field : token) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "text") {
      text = opt_string(field.value()).value_or(std::string_view());
    } else if (key == "special") {
      const json_type t = field.value().type();
      if (t == json_type::boolean) special = field.value().get_bool();
    }
  }
  d.tokens = 1;
  d.text_event = !text.empty();
  if (!special) {
    d.text = text;
    d.content_chars = static_cast<uint32_t>(text.size());
  }
}

// One TGI response object: a stream event or a /generate body.
void decode_object(object obj, Decoded& d, bool whole_body) {
  bool has_error = false;
  std::string_view error_message;
  std::string_view error_type;
  for (auto field : obj) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "token") {
      if (field.value().type() == json_type::object) decode_token(field.value().get_object(), d);
    } else if (key == "generated_text") {
      if (auto text = opt_string(field.value())) {
        d.final = true;
        if (whole_body) {
          d.text = *text;
          d.content_chars = static_cast<uint32_t>(text->size());
          d.text_event = !text->empty();
        }
      }
    } else if (key == "details") {
      if (field.value().type() == json_type::object) decode_details(field.value().get_object(), d);
    } else if (key == "error") {
      has_error = true;
      error_message = opt_string(field.value()).value_or("(no message)");
    } else if (key == "error_type") {
      error_type = opt_string(field.value()).value_or(std::string_view());
    }
  }
  if (has_error) {
    d.error = tgi_error_class(error_type);
    d.error_message = clip_error(error_message);
  }
}

class TgiAdapter final : public Adapter {
 public:
  explicit TgiAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override {
    return config_.stream ? "/generate_stream" : "/generate";
  }

  std::string build_body(const Prompt& prompt) const override {
    nlohmann::json parameters = {{"details", true}};
    if (prompt.max_tokens > 0) parameters["max_new_tokens"] = prompt.max_tokens;
    nlohmann::json body = {{"inputs", prompt.text}, {"parameters", std::move(parameters)}};
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override { return decode(data, false); }
  Decoded decode_body(std::string_view body) override { return decode(body, true); }

 private:
  Decoded decode(std::string_view json, bool whole_body) {
    Decoded d;
    try {
      simdjson::ondemand::document& doc = decoder_.parse(json);
      const json_type root = doc.type();
      if (root == json_type::object) {
        decode_object(doc.get_object(), d, whole_body);
      } else if (root == json_type::array && whole_body) {
        // Some TGI versions answer /generate with a one-element array.
        for (auto element : doc.get_array()) {
          decode_object(element.get_object(), d, whole_body);
          break;
        }
      } else {
        d.error = ErrorClass::malformed;
        d.error_message = clip_error("unexpected TGI payload: " + std::string(json));
      }
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
    }
    return d;
  }

  AdapterConfig config_;
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_tgi_adapter(const AdapterConfig& config) {
  return std::make_unique<TgiAdapter>(config);
}

}  // namespace sb::protocol
