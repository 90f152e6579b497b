// --priority-mix on the wire (protocol/adapter.h Prompt::priority): vLLM's top-level integer
// "priority" (vllm/entrypoints/openai CompletionRequest and ChatCompletionRequest: "lower
// means earlier handling; default: 0") on completions and chat; TGI's parameters have no
// priority field (huggingface/text-generation-inference router GenerateParameters), so its
// body carries none (the engine sends the x-priority headers instead).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "protocol/adapter.h"

namespace sb::protocol {
namespace {

nlohmann::json body_of(Api api, std::optional<int64_t> priority) {
  AdapterConfig config;
  config.api = api;
  config.model = "m";
  return nlohmann::json::parse(make_adapter(config)->build_body(
      Prompt{.text = "x", .messages_json = "", .max_tokens = 8, .priority = priority}));
}

TEST(PriorityBody, VllmApisSendTheIntegerTgiNone) {
  for (Api api : {Api::openai, Api::openai_chat}) {
    const auto b = body_of(api, 1);
    ASSERT_TRUE(b.contains("priority")) << b;
    EXPECT_TRUE(b["priority"].is_number_integer()) << b;
    EXPECT_EQ(b["priority"], 1);
    EXPECT_EQ(body_of(api, 0)["priority"], 0);
    EXPECT_FALSE(body_of(api, std::nullopt).contains("priority"));
  }
  const auto tgi = body_of(Api::tgi, 1);
  EXPECT_FALSE(tgi.contains("priority")) << tgi;
  EXPECT_FALSE(tgi["parameters"].contains("priority")) << tgi;
}

}  // namespace
}  // namespace sb::protocol
