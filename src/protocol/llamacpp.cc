// llama.cpp's native completion API, POST /completion, as ggml-org/llama.cpp
// tools/server/server.cpp (and tools/server/README.md) define it.
//
// Request: {"prompt": text, "n_predict": N, "stream": bool, "ignore_eos"?}. n_predict
// -1 (or absent) leaves the length to the server. Prompt::messages_json is not used.
//
// Stream events ("data: {json}\n\n", no [DONE]): {"content": "...", "stop": false, ...}
// per piece of text; the last event has "stop": true, "tokens_predicted",
// "tokens_evaluated" and "timings" {prompt_n, prompt_ms, predicted_n, predicted_ms,
// predicted_per_token_ms, cache_n, ...}. A non-streamed body is the last event's object
// with the whole text in "content". Errors: {"error": {"code", "message", "type"}}.
//
// Server timings: prefill = timings.prompt_ms, decode = timings.predicted_ms, cached
// prompt tokens = timings.cache_n; llama.cpp reports neither queue time nor a total.
#include "common/error_clip.h"
#include "protocol/json_decoder.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

std::optional<double> opt_double(value v) {
  if (v.type() != json_type::number) return std::nullopt;
  return double(v.get_double());
}

void decode_timings(object timings, Decoded& d) {
  ServerTimes t;
  t.source = ServerTimingSource::llamacpp_timings;
  for (auto field : timings) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "prompt_ms") {
      t.prefill_ms = opt_double(field.value()).value_or(-1);
    } else if (key == "predicted_ms") {
      t.decode_ms = opt_double(field.value()).value_or(-1);
    } else if (key == "cache_n") {
      t.cached_tokens = opt_int(field.value()).value_or(-1);
    }
  }
  d.server_timings = t;
}

void decode_error(value error, Decoded& d) {
  d.error = ErrorClass::server_error;
  if (error.type() == json_type::string) {
    d.error_message = clip_error(std::string_view(error.get_string()));
    return;
  }
  if (error.type() != json_type::object) return;
  std::optional<int64_t> code;
  std::string type;
  std::string message = "(no message)";
  for (auto field : error.get_object()) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "code") {
      code = opt_int(field.value());
    } else if (key == "type") {
      type = std::string(opt_string(field.value()).value_or(""));
    } else if (key == "message") {
      message = std::string(opt_string(field.value()).value_or("(no message)"));
    }
  }
  d.error = error_class_from_code(code, "", type);
  d.error_message = clip_error(message);
}

// One llama.cpp response object: a stream event or a whole body. The text is the last
// string taken from the document, so its view stays valid.
void decode_object(object obj, Decoded& d) {
  for (auto field : obj) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "content") {
      if (auto text = opt_string(field.value())) {
        d.text = *text;
        d.content_chars = static_cast<uint32_t>(text->size());
        d.text_event = !text->empty();
      }
    } else if (key == "stop") {
      if (field.value().type() == json_type::boolean) d.final = bool(field.value().get_bool());
    } else if (key == "tokens_predicted") {
      d.completion_tokens = opt_int(field.value());
    } else if (key == "tokens_evaluated") {
      d.prompt_tokens = opt_int(field.value());
    } else if (key == "timings") {
      if (field.value().type() == json_type::object) decode_timings(field.value().get_object(), d);
    } else if (key == "error") {
      decode_error(field.value(), d);
    }
  }
}

class LlamaCppAdapter final : public Adapter {
 public:
  explicit LlamaCppAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override { return "/completion"; }

  std::string build_body(const Prompt& prompt) const override {
    nlohmann::json body = {{"prompt", prompt.text}, {"stream", config_.stream}};
    body["n_predict"] = prompt.max_tokens > 0 ? prompt.max_tokens : -1;
    if (config_.ignore_eos) body["ignore_eos"] = true;
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override { return decode(data, false); }
  Decoded decode_body(std::string_view body) override { return decode(body, true); }

 private:
  Decoded decode(std::string_view json, bool whole_body) {
    Decoded d;
    try {
      simdjson::ondemand::document& doc = decoder_.parse(json);
      if (doc.type() != json_type::object) {
        d.error = ErrorClass::malformed;
        d.error_message = clip_error("unexpected llama.cpp payload: " + std::string(json));
        return d;
      }
      decode_object(doc.get_object(), d);
    } catch (const simdjson::simdjson_error& e) {
      set_malformed(d, e);
      return d;
    }
    if (whole_body) d.final = true;
    // Only the last event's count is the request's (earlier ones count so far).
    if (!d.final) d.completion_tokens.reset();
    return d;
  }

  AdapterConfig config_;
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_llamacpp_adapter(const AdapterConfig& config) {
  return std::make_unique<LlamaCppAdapter>(config);
}

}  // namespace sb::protocol
