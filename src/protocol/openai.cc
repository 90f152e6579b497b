// OpenAI completions, /v1/completions (docs/architecture.md), as vLLM serves it
// (vllm-project/vllm vllm/entrypoints/openai/serving_completion.py).
//
// Request: {"model"?, "prompt", "max_tokens"?, "priority"?, "stream", "stream_options"?,
// "ignore_eos"?}.
// `max_tokens` is the completions API's only length field (OpenAI and vLLM).
// Prompt::messages_json is not used. Text: choices[0].text.
#include "protocol/openai_common.h"

namespace sb::protocol {
namespace {

class OpenAiAdapter final : public Adapter {
 public:
  explicit OpenAiAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override { return "/v1/completions"; }

  std::string build_body(const Prompt& prompt) const override {
    if (auto plain = plain_openai_body(config_, prompt, false)) return std::move(*plain);
    nlohmann::json body = nlohmann::json::object();
    body["prompt"] = prompt.text;
    if (prompt.max_tokens > 0) body["max_tokens"] = prompt.max_tokens;
    if (prompt.priority) body["priority"] = *prompt.priority;
    add_openai_fields(body, config_);
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    return decode_openai(decoder_, data, ChoiceText::text, false);
  }
  Decoded decode_body(std::string_view body) override {
    return decode_openai(decoder_, body, ChoiceText::text, true);
  }

 private:
  AdapterConfig config_;
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_openai_adapter(const AdapterConfig& config) {
  return std::make_unique<OpenAiAdapter>(config);
}

}  // namespace sb::protocol
