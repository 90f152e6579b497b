// The non-generative ("pooling") APIs: OpenAI embeddings and rerank, never streamed
// (docs/workloads.md, "Embeddings, rerank and image encoders").
//
// embeddings, POST /v1/embeddings (OpenAI; vLLM vllm/entrypoints/openai/serving_embedding.py,
// TEI, Infinity): {"model"?, "input": [text, ...], "encoding_format": "float"}; image inputs
// as [{"image": URL}, ...] (Jina's multimodal input form; URL a data: URL with base64 bytes).
// Response {"object": "list", "data": [{"object": "embedding", "index", "embedding": [floats]
// or base64}], "usage": {"prompt_tokens", "total_tokens"}}: one item per data entry.
//
// rerank, POST /v1/rerank (vLLM vllm/entrypoints/openai/serving_score.py, Jina, Cohere v1):
// {"model"?, "query": Prompt::text, "documents": [text, ...], "top_n": documents}. Response
// {"results": [{"index", "relevance_score", "document"?}], "usage": {"total_tokens"}}, or
// TEI's top-level array [{"index", "score"}]: one item per result.
//
// A 200 body with an error object (OpenAI's {"error": {...}} or vLLM's {"object": "error"})
// is decoded as the completions adapter decodes it.
#include <fmt/format.h>

#include "common/error_clip.h"
#include "protocol/openai_common.h"

namespace sb::protocol {
namespace {

using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

void decode_pooling_usage(object usage, Decoded& d) {
  std::optional<int64_t> prompt, total;
  for (auto field : usage) {
    const simdjson::ondemand::raw_json_string key = field.key();
    if (key == "prompt_tokens") prompt = opt_int(field.value());
    if (key == "total_tokens") total = opt_int(field.value());
  }
  d.prompt_tokens = prompt ? prompt : total;  // rerank reports only total_tokens
}

// Counts the entries of `items` that are objects; an entry of another type is malformed.
std::optional<int64_t> count_objects(simdjson::ondemand::array items, Decoded& d,
                                     std::string_view what) {
  int64_t n = 0;
  for (auto item : items) {
    if (item.type() != json_type::object) {
      d.error = ErrorClass::malformed;
      d.error_message = clip_error(fmt::format("{}[{}] is not a JSON object", what, n));
      return std::nullopt;
    }
    ++n;
  }
  return n;
}

// The whole body of an embeddings or rerank response; `list_key` names the item array.
Decoded decode_pooling(JsonDecoder& decoder, std::string_view json, std::string_view list_key) {
  Decoded d;
  try {
    simdjson::ondemand::document& doc = decoder.parse(json);
    const json_type root = doc.type();
    if (root == json_type::array) {  // TEI's /rerank
      d.items = count_objects(doc.get_array(), d, "the response");
    } else if (root != json_type::object) {
      return not_an_object(json);
    } else {
      for (auto field : doc.get_object()) {
        const simdjson::ondemand::raw_json_string key = field.key();
        value v = field.value();
        if (key == list_key) {
          if (v.type() != json_type::array) {
            d.error = ErrorClass::malformed;
            d.error_message = fmt::format("\"{}\" is not an array", list_key);
            return d;
          }
          d.items = count_objects(v.get_array(), d, list_key);
        } else if (key == "usage") {
          if (v.type() == json_type::object) decode_pooling_usage(v.get_object(), d);
        } else if (key == "error" || (key == "object" && opt_string(v).value_or("") == "error")) {
          return decode_openai(decoder, json, ChoiceText::text, true);
        }
      }
    }
  } catch (const simdjson::simdjson_error& e) {
    set_malformed(d, e);
    return d;
  }
  if (d.error != ErrorClass::ok) return d;
  if (!d.items) {
    d.error = ErrorClass::malformed;
    d.error_message = fmt::format("the response has no \"{}\" array", list_key);
    return d;
  }
  d.text_event = true;  // the answer arrived: the request's first and last instant
  d.final = true;
  return d;
}

class PoolingAdapter final : public Adapter {
 public:
  explicit PoolingAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override {
    return rerank() ? "/v1/rerank" : "/v1/embeddings";
  }

  std::string build_body(const Prompt& prompt) const override {
    nlohmann::json body = nlohmann::json::object();
    if (!config_.model.empty()) body["model"] = config_.model;
    if (rerank()) {
      body["query"] = prompt.text;
      body["documents"] = prompt.inputs;
      body["top_n"] = prompt.inputs.size();
    } else if (prompt.image_inputs) {
      nlohmann::json input = nlohmann::json::array();
      for (const std::string& url : prompt.inputs) input.push_back({{"image", url}});
      body["input"] = std::move(input);
      body["encoding_format"] = "float";
    } else {
      body["input"] = prompt.inputs;
      body["encoding_format"] = "float";
    }
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    Decoded d;  // never streamed (the engine asks for whole bodies); an event is malformed
    d.error = ErrorClass::malformed;
    d.error_message = clip_error(fmt::format("--api {} is not streamed; got an SSE event: {}",
                                             to_string(config_.api), data));
    return d;
  }
  Decoded decode_body(std::string_view body) override {
    return decode_pooling(decoder_, body, rerank() ? "results" : "data");
  }

 private:
  bool rerank() const { return config_.api == Api::rerank; }

  AdapterConfig config_;
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_pooling_adapter(const AdapterConfig& config) {
  return std::make_unique<PoolingAdapter>(config);
}

}  // namespace sb::protocol
