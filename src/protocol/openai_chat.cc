// OpenAI chat completions, /v1/chat/completions (docs/architecture.md), as vLLM serves
// it (vllm-project/vllm vllm/entrypoints/openai/serving_chat.py).
//
// Request: {"model"?, "messages", "max_tokens"?, "priority"?, "stream", "stream_options"?,
// "ignore_eos"?}.
// messages: Prompt::messages_json verbatim when set, else one user message.
// Length field: "max_tokens" by default. vLLM and SGLang accept it (marked
// "deprecated in favor of the max_completion_tokens field" but honoured), as do
// TGI's Messages API, llama.cpp and OpenAI's non-reasoning models. OpenAI's
// reasoning models reject any request carrying max_tokens and need
// max_completion_tokens: AdapterConfig::max_completion_tokens sends that field
// instead (vLLM accepts it too). Both are never sent together.
//
// Text: choices[0].delta.content is output text; delta.reasoning_content or
// delta.reasoning is reasoning text. A role-only first chunk, an empty content,
// a finish_reason-only chunk and the usage chunk are not text events.
#include "common/error.h"
#include "common/error_clip.h"
#include "protocol/openai_common.h"

namespace sb::protocol {
namespace {

class OpenAiChatAdapter final : public Adapter {
 public:
  explicit OpenAiChatAdapter(const AdapterConfig& config) : config_(config) {}

  std::string_view default_path() const override { return "/v1/chat/completions"; }

  std::string build_body(const Prompt& prompt) const override {
    if (auto plain = plain_openai_body(config_, prompt, true)) return std::move(*plain);
    nlohmann::json body = nlohmann::json::object();
    if (!prompt.messages_json.empty()) {
      nlohmann::json messages = nlohmann::json::parse(prompt.messages_json, nullptr, false);
      if (!messages.is_array()) {
        throw usage_error("prompt messages must be a JSON array of chat messages: " +
                          clip_error(prompt.messages_json));
      }
      body["messages"] = std::move(messages);
    } else {
      body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt.text}}});
    }
    if (prompt.max_tokens > 0) {
      body[config_.max_completion_tokens ? "max_completion_tokens" : "max_tokens"] =
          prompt.max_tokens;
    }
    if (prompt.priority) body["priority"] = *prompt.priority;
    add_openai_fields(body, config_);
    return finish_body(std::move(body), config_.extra_body);
  }

  Decoded decode_event(std::string_view data) override {
    return decode_openai(decoder_, data, ChoiceText::delta, false);
  }
  Decoded decode_body(std::string_view body) override {
    return decode_openai(decoder_, body, ChoiceText::message, true);
  }

 private:
  AdapterConfig config_;
  JsonDecoder decoder_;
};

}  // namespace

std::unique_ptr<Adapter> make_openai_chat_adapter(const AdapterConfig& config) {
  return std::make_unique<OpenAiChatAdapter>(config);
}

}  // namespace sb::protocol
