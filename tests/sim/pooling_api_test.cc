// The simulator's embeddings and rerank formats (sim/pooling_api.h): every input form the
// servers accept, the errors they send, and the response shapes the client counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/image_bytes.h"
#include "sim/pooling_api.h"

namespace sb::sim {
namespace {

using nlohmann::json;

SimConfig config() {
  SimConfig c;
  c.text.chars_per_token = 4;
  c.text.image_tokens = 257;
  c.sched.max_total_tokens = 512;
  c.model.hidden_size = 8;
  return c;
}

PoolingRequest ok(PoolingKind kind, std::string_view body) {
  auto r = parse_pooling(kind, body, config());
  if (auto* e = std::get_if<HttpError>(&r)) {
    ADD_FAILURE() << e->message;
    return {};
  }
  return std::get<PoolingRequest>(r);
}

std::string error(PoolingKind kind, std::string_view body) {
  auto r = parse_pooling(kind, body, config());
  auto* e = std::get_if<HttpError>(&r);
  if (!e) {
    ADD_FAILURE() << "accepted: " << body;
    return "";
  }
  EXPECT_EQ(e->status, 400);
  EXPECT_EQ(json::parse(e->body)["type"], "BadRequestError");  // vLLM's error body
  return e->message;
}

const std::string kPng = sb::base64_encode(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));

TEST(PoolingParse, EveryEmbeddingsInputForm) {
  EXPECT_EQ(ok(PoolingKind::embeddings, R"({"input":"12345678"})").tokens, std::vector<int64_t>{2});
  EXPECT_EQ(ok(PoolingKind::embeddings, R"({"input":["1234","12345",""]})").tokens,
            (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(ok(PoolingKind::embeddings, R"({"input":[101, 7592, 102]})").tokens,
            std::vector<int64_t>{3});  // one token-id array: one input
  EXPECT_EQ(ok(PoolingKind::embeddings, R"({"input":[[1,2],[3,4,5]]})").tokens,
            (std::vector<int64_t>{2, 3}));
  const PoolingRequest img = ok(
      PoolingKind::embeddings,
      R"({"model":"openai/clip-vit-large-patch14","encoding_format":"base64","input":[{"image":"data:image/png;base64,)" +
          kPng + R"("},{"text":"a cat"},{"image":"https://example.com/x.jpg"}]})");
  EXPECT_EQ(img.tokens, (std::vector<int64_t>{257, 2, 257}));
  EXPECT_EQ(img.images, 2);
  EXPECT_TRUE(img.base64);
  EXPECT_EQ(img.model, "openai/clip-vit-large-patch14");
  EXPECT_EQ(img.total_tokens(), 516);
}

TEST(PoolingParse, EmbeddingsErrorsNameTheInput) {
  EXPECT_EQ(error(PoolingKind::embeddings, "not json"), "the request body is not a JSON object");
  EXPECT_EQ(error(PoolingKind::embeddings, R"({"model":"m"})"), "'input' is required");
  EXPECT_EQ(error(PoolingKind::embeddings, R"({"input":[]})"), "'input' is empty");
  EXPECT_EQ(error(PoolingKind::embeddings, R"({"input":7})"),
            "'input' must be a string or an array");
  EXPECT_NE(error(PoolingKind::embeddings, R"({"input":["a",{"video":"x"}]})").find("input[1]"),
            std::string::npos);
  EXPECT_NE(error(PoolingKind::embeddings, R"({"input":[[1,"a"]]})").find("integers only"),
            std::string::npos);
  // An image that is not one: valid base64 of text, invalid base64, not a data: URL.
  const std::string text64 = sb::base64_encode("just some text, no image");
  EXPECT_EQ(error(PoolingKind::embeddings, R"({"input":[{"image":"data:image/png;base64,)" + kPng +
                                               R"("},{"image":"data:image/png;base64,)" + text64 +
                                               R"("}]})"),
            "input[1]: not an image (its bytes start with no PNG, JPEG, GIF or WebP signature)");
  EXPECT_EQ(error(PoolingKind::embeddings, R"({"input":[{"image":"data:image/png;base64,@@@@"}]})"),
            "input[0]: the image's data is not valid base64");
  EXPECT_NE(error(PoolingKind::embeddings, R"({"input":[{"image":"/tmp/cat.png"}]})")
                .find("must be a data: URL"),
            std::string::npos);
  EXPECT_NE(error(PoolingKind::embeddings, R"({"input":"x","encoding_format":"int8"})")
                .find("encoding_format"),
            std::string::npos);
  // Longer than the model's context (sched.max_total_tokens = 512): vLLM's message.
  const std::string msg =
      error(PoolingKind::embeddings, R"({"input":["ok",")" + std::string(2052, 'a') + R"("]})");
  EXPECT_NE(msg.find("maximum context length is 512 tokens"), std::string::npos) << msg;
  EXPECT_NE(msg.find("513 tokens in input[1]"), std::string::npos) << msg;
}

TEST(PoolingParse, RerankPairsTheQueryWithEachDocument) {
  const PoolingRequest r = ok(
      PoolingKind::rerank,
      R"({"model":"BAAI/bge-reranker-base","query":"12345678","documents":["1234",{"text":"12345678901"}],"top_n":1})");
  EXPECT_EQ(r.tokens, (std::vector<int64_t>{2 + 1, 2 + 3}));  // query + document each
  EXPECT_EQ(r.top_n, 1);
  EXPECT_EQ(ok(PoolingKind::rerank, R"({"query":"q","documents":["a","b","c"]})").top_n, 3);
  EXPECT_NE(error(PoolingKind::rerank, R"({"documents":["a"]})").find("'query' is required"),
            std::string::npos);
  EXPECT_NE(error(PoolingKind::rerank, R"({"query":"q","documents":[]})").find("'documents'"),
            std::string::npos);
  EXPECT_NE(error(PoolingKind::rerank, R"({"query":"q","documents":["a",3]})").find("documents[1]"),
            std::string::npos);
  EXPECT_NE(
      error(PoolingKind::rerank, R"({"query":"q","documents":["a"],"top_n":0})").find("top_n"),
      std::string::npos);
}

TEST(PoolingResponse, EmbeddingsHoldOneVectorPerInputOfTheModelsWidth) {
  const PoolingRequest r = ok(PoolingKind::embeddings, R"({"input":["1234","12345678"]})");
  const json body = json::parse(pooling_response(r, "m", "", 8));
  EXPECT_EQ(body["object"], "list");
  EXPECT_EQ(body["model"], "m");
  ASSERT_EQ(body["data"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(body["data"][i]["index"], i);
    EXPECT_EQ(body["data"][i]["object"], "embedding");
    ASSERT_EQ(body["data"][i]["embedding"].size(), 8u);
    for (const auto& x : body["data"][i]["embedding"]) EXPECT_LE(std::abs(x.get<double>()), 0.1);
  }
  EXPECT_EQ(body["usage"]["prompt_tokens"], 3);
  EXPECT_EQ(body["usage"]["total_tokens"], 3);
  // base64: the little-endian float32 bytes, 4 per float.
  const PoolingRequest b =
      ok(PoolingKind::embeddings, R"({"input":"x","encoding_format":"base64"})");
  const json b64 = json::parse(pooling_response(b, "m", "", 8));
  const auto bytes = sb::base64_decode(b64["data"][0]["embedding"].get<std::string>());
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 32u);
}

TEST(PoolingResponse, RerankResultsAreSortedByScoreAndCutAtTopN) {
  const PoolingRequest r =
      ok(PoolingKind::rerank, R"({"query":"q","documents":["a","b","c","d","e"],"top_n":3})");
  const json body = json::parse(pooling_response(r, "m", "rerank-1", 8));
  EXPECT_EQ(body["id"], "rerank-1");
  ASSERT_EQ(body["results"].size(), 3u);
  double last = 2;
  std::set<int64_t> seen;
  for (const auto& x : body["results"]) {
    const double s = x["relevance_score"];
    EXPECT_LE(s, last);
    EXPECT_GE(s, 0.0);
    last = s;
    EXPECT_TRUE(seen.insert(x["index"].get<int64_t>()).second);
    EXPECT_LT(x["index"].get<int64_t>(), 5);
  }
  EXPECT_EQ(body["usage"]["total_tokens"], 10);  // 5 x (1 + 1)
}

TEST(ImageBytes, Base64RoundTripsAndSignaturesNameTheType) {
  for (std::string s : {std::string(), std::string("f"), std::string("fo"), std::string("foo"),
                        std::string("\0\xff\x10", 3)})
    EXPECT_EQ(sb::base64_decode(sb::base64_encode(s)), s);
  EXPECT_FALSE(sb::base64_decode("Zg="));   // not a multiple of 4
  EXPECT_FALSE(sb::base64_decode("Z=g="));  // padding inside
  EXPECT_FALSE(sb::base64_decode("Zg!="));
  EXPECT_EQ(sb::image_type_of_bytes("\xFF\xD8\xFF\xE0"), "image/jpeg");
  EXPECT_EQ(sb::image_type_of_bytes("GIF89a..."), "image/gif");
  EXPECT_EQ(sb::image_type_of_bytes(std::string("RIFF\0\0\0\0WEBPVP8 ", 16)), "image/webp");
  EXPECT_FALSE(sb::image_type_of_bytes("RIFF"));
  EXPECT_FALSE(sb::image_type_of_bytes("jpegbytes"));
}

}  // namespace
}  // namespace sb::sim
