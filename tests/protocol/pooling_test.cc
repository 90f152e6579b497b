// The non-generative adapters (--api embeddings, --api rerank). The response samples are
// written by hand from the APIs' documentation: OpenAI's API reference ("Embeddings": the
// embedding object list with usage), vLLM's rerank endpoint (Jina/Cohere-compatible
// "results" with relevance_score, usage.total_tokens), TEI's /rerank (a bare array of
// {index, score}), and the two OpenAI-style error shapes. Never streamed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "protocol/adapter.h"

namespace sb::protocol {
namespace {

using nlohmann::json;

std::unique_ptr<Adapter> pooling(Api api, std::string model = "BAAI/bge-large-en-v1.5") {
  AdapterConfig config;
  config.api = api;
  config.stream = false;
  config.model = std::move(model);
  return make_adapter(config);
}

TEST(EmbeddingsAdapter, SendsEveryInputAsOneBatchToTheEmbeddingsPath) {
  auto a = pooling(Api::embeddings);
  EXPECT_EQ(a->default_path(), "/v1/embeddings");
  const json body =
      json::parse(a->build_body(Prompt{.text = "ignored", .inputs = {"first text", "second"}}));
  EXPECT_EQ(body["model"], "BAAI/bge-large-en-v1.5");
  EXPECT_EQ(body["input"], json::array({"first text", "second"}));
  EXPECT_EQ(body["encoding_format"], "float");
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("max_tokens"));
}

TEST(EmbeddingsAdapter, ImagesGoAsImageObjects) {
  auto a = pooling(Api::embeddings, "");
  const json body = json::parse(a->build_body(
      Prompt{.inputs = {"data:image/png;base64,iVBORw0KGgo=", "https://example.com/cat.jpg"},
             .image_inputs = true}));
  EXPECT_FALSE(body.contains("model"));  // no --model: left to the server
  ASSERT_EQ(body["input"].size(), 2u);
  EXPECT_EQ(body["input"][0], json({{"image", "data:image/png;base64,iVBORw0KGgo="}}));
  EXPECT_EQ(body["input"][1], json({{"image", "https://example.com/cat.jpg"}}));
}

TEST(EmbeddingsAdapter, ExtraBodyIsMergedLast) {
  AdapterConfig config;
  config.api = Api::embeddings;
  config.stream = false;
  config.extra_body = json{{"encoding_format", "base64"}, {"dimensions", 256}};
  auto a = make_adapter(config);
  const json body = json::parse(a->build_body(Prompt{.inputs = {"x"}}));
  EXPECT_EQ(body["encoding_format"], "base64");
  EXPECT_EQ(body["dimensions"], 256);
}

// OpenAI's API reference, "The embedding object" (vectors shortened).
constexpr std::string_view kEmbeddings = R"({
  "object": "list",
  "data": [
    {"object": "embedding", "embedding": [0.0023064255, -0.009327292, -0.0028842222], "index": 0},
    {"object": "embedding", "embedding": [0.0111, 0.0222, -0.0333], "index": 1},
    {"object": "embedding", "embedding": "AAAAAAAAgD8=", "index": 2}
  ],
  "model": "text-embedding-3-small",
  "usage": {"prompt_tokens": 17, "total_tokens": 17}
})";

TEST(EmbeddingsAdapter, CountsItemsAndPromptTokensOfTheWholeBody) {
  auto a = pooling(Api::embeddings);
  const Decoded d = a->decode_body(kEmbeddings);
  EXPECT_EQ(d.error, ErrorClass::ok) << d.error_message;
  ASSERT_TRUE(d.items);
  EXPECT_EQ(*d.items, 3);
  ASSERT_TRUE(d.prompt_tokens);
  EXPECT_EQ(*d.prompt_tokens, 17);
  EXPECT_FALSE(d.completion_tokens);  // an encoder generates nothing
  EXPECT_TRUE(d.text_event);          // the answer's arrival is the request's instant
  EXPECT_TRUE(d.final);
  EXPECT_EQ(d.content_chars, 0u);
}

TEST(EmbeddingsAdapter, ErrorsAndMalformedBodies) {
  auto a = pooling(Api::embeddings);
  // OpenAI's error object after a 200 (a proxy), and vLLM's older top-level ErrorResponse.
  Decoded d = a->decode_body(
      R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})");
  EXPECT_EQ(d.error, ErrorClass::rate_limited);
  EXPECT_EQ(d.error_message, "Rate limit reached");
  d = a->decode_body(
      R"({"object":"error","message":"maximum context length is 512","type":"BadRequestError","code":400})");
  EXPECT_EQ(d.error, ErrorClass::validation);
  d = a->decode_body(R"({"object":"list","data":[)");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_NE(d.error_message.find("malformed JSON"), std::string::npos) << d.error_message;
  d = a->decode_body(R"({"object":"list","usage":{"prompt_tokens":3}})");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_EQ(d.error_message, "the response has no \"data\" array");
  d = a->decode_body(R"({"data":{"embedding":[1]}})");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  d = a->decode_body(R"({"data":[{"embedding":[1]}, 7]})");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_EQ(d.error_message, "data[1] is not a JSON object");
  d = a->decode_body("[1,2]");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  // An SSE event is not what a pooling API sends.
  d = a->decode_event(R"({"data":[]})");
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_NE(d.error_message.find("not streamed"), std::string::npos);
}

TEST(RerankAdapter, SendsTheQueryAndEveryDocumentAskingForAllScores) {
  auto a = pooling(Api::rerank, "BAAI/bge-reranker-v2-m3");
  EXPECT_EQ(a->default_path(), "/v1/rerank");
  const json body = json::parse(
      a->build_body(Prompt{.text = "What is a panda?", .inputs = {"hi", "The giant panda"}}));
  EXPECT_EQ(body["model"], "BAAI/bge-reranker-v2-m3");
  EXPECT_EQ(body["query"], "What is a panda?");
  EXPECT_EQ(body["documents"], json::array({"hi", "The giant panda"}));
  EXPECT_EQ(body["top_n"], 2);
}

// vLLM's /v1/rerank (Jina / Cohere v1 shape) and TEI's /rerank.
TEST(RerankAdapter, CountsResultsOfVllmAndTeiBodies) {
  auto a = pooling(Api::rerank);
  Decoded d = a->decode_body(
      R"({"id":"rerank-8d7e","model":"BAAI/bge-reranker-base","usage":{"total_tokens":27},)"
      R"("results":[{"index":1,"document":{"text":"The giant panda"},"relevance_score":0.99853},)"
      R"({"index":0,"document":{"text":"hi"},"relevance_score":0.00003}]})");
  EXPECT_EQ(d.error, ErrorClass::ok) << d.error_message;
  ASSERT_TRUE(d.items);
  EXPECT_EQ(*d.items, 2);
  ASSERT_TRUE(d.prompt_tokens);
  EXPECT_EQ(*d.prompt_tokens, 27);  // rerank reports total_tokens only
  d = a->decode_body(R"([{"index":1,"score":0.9985},{"index":0,"score":0.0001}])");
  EXPECT_EQ(d.error, ErrorClass::ok) << d.error_message;
  ASSERT_TRUE(d.items);
  EXPECT_EQ(*d.items, 2);
  EXPECT_FALSE(d.prompt_tokens);
  d = a->decode_body(R"({"data":[{"embedding":[1]}]})");  // an embeddings answer
  EXPECT_EQ(d.error, ErrorClass::malformed);
  EXPECT_EQ(d.error_message, "the response has no \"results\" array");
}

TEST(PoolingApi, NamesParseAndArePooling) {
  EXPECT_EQ(api_from_string("embeddings"), Api::embeddings);
  EXPECT_EQ(api_from_string("rerank"), Api::rerank);
  EXPECT_EQ(to_string(Api::embeddings), "embeddings");
  EXPECT_TRUE(is_pooling(Api::rerank));
  EXPECT_FALSE(is_pooling(Api::openai));
  EXPECT_NE(api_choices().find("embeddings or rerank"), std::string::npos);
}

}  // namespace
}  // namespace sb::protocol
