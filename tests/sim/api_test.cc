// Wire formats of the simulator, byte for byte (docs/architecture.md).
#include "sim/api.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace sb::sim {
namespace {

SimConfig cfg() {
  SimConfig c = preset_config("tgi");
  c.model.name = "m";
  return c;
}

GenRequest parse_ok(ApiKind api, std::string_view body) {
  auto r = parse_generate(api, body, cfg());
  if (auto* e = std::get_if<HttpError>(&r)) ADD_FAILURE() << e->status << " " << e->body;
  return std::get<GenRequest>(r);
}

HttpError parse_err(ApiKind api, std::string_view body) {
  auto r = parse_generate(api, body, cfg());
  if (std::holds_alternative<GenRequest>(r)) {
    ADD_FAILURE() << "accepted: " << body;
    return {};
  }
  return std::get<HttpError>(r);
}

TEST(Api, PromptTokensAreCeilBytesOverFour) {
  EXPECT_EQ(count_text_tokens("", 4), 0);
  EXPECT_EQ(count_text_tokens("abc", 4), 1);
  EXPECT_EQ(count_text_tokens("abcd", 4), 1);
  EXPECT_EQ(count_text_tokens("abcde", 4), 2);
}

TEST(Api, TokensAreFourByteWordsAndDeterministic) {
  for (int i = 1; i < 200; ++i) {
    Token t = token_at(7, i);
    EXPECT_EQ(t.text.size(), 4u);
    EXPECT_EQ(t.text[0], ' ');
    EXPECT_EQ(token_at(7, i).id, t.id);
  }
  // The logprob's text is the value as {:.4f} writes it, whichever of the 4,096 steps.
  for (int i = 1; i < 20000; ++i) {
    const Token t = token_at(11, i);
    ASSERT_EQ(t.logprob_text, fmt::format("{:.4f}", t.logprob)) << i;
  }
}

TEST(Api, ParsesTgiRequest) {
  GenRequest g = parse_ok(
      ApiKind::tgi_stream,
      R"({"inputs":"12345678","parameters":{"max_new_tokens":3,"details":true,"seed":9}})");
  EXPECT_EQ(g.prompt_tokens, 2);
  EXPECT_EQ(g.max_new_tokens, 3);
  EXPECT_EQ(g.output_tokens, 3);
  EXPECT_TRUE(g.details);
  EXPECT_TRUE(g.stream);
  EXPECT_EQ(g.seed, 9u);
  // Same prompt and seed: same text.
  EXPECT_EQ(parse_ok(ApiKind::tgi_stream,
                     R"({"inputs":"12345678","parameters":{"max_new_tokens":3,"seed":9}})")
                .text_seed,
            g.text_seed);
}

TEST(Api, TgiStreamBytes) {
  GenRequest g =
      parse_ok(ApiKind::tgi_stream,
               R"({"inputs":"12345678","parameters":{"max_new_tokens":2,"details":true}})");
  Formatter f(g, "", 0);
  EXPECT_EQ(f.stream_start(), "");
  Token t1 = token_at(g.text_seed, 1), t2 = token_at(g.text_seed, 2);
  EXPECT_EQ(
      f.token_event(1, false),
      fmt::format("data:{{\"index\":1,\"token\":{{\"id\":{},\"text\":\"{}\",\"logprob\":{:.4f},"
                  "\"special\":false}},\"generated_text\":null,\"details\":null}}\n\n",
                  t1.id, t1.text, t1.logprob));
  EXPECT_EQ(
      f.token_event(2, true),
      fmt::format("data:{{\"index\":2,\"token\":{{\"id\":{},\"text\":\"{}\",\"logprob\":{:.4f},"
                  "\"special\":false}},\"generated_text\":\"{}{}\",\"details\":{{"
                  "\"finish_reason\":\"length\",\"generated_tokens\":2,\"seed\":null,"
                  "\"input_length\":2}}}}\n\n",
                  t2.id, t2.text, t2.logprob, t1.text, t2.text));
  EXPECT_EQ(f.stream_end(), "");
}

TEST(Api, TgiFinalEventWithoutDetails) {
  GenRequest g =
      parse_ok(ApiKind::tgi_stream, R"({"inputs":"x","parameters":{"max_new_tokens":1}})");
  Formatter f(g, "", 0);
  std::string ev = f.token_event(1, true);
  EXPECT_NE(ev.find(",\"details\":null}\n\n"), std::string::npos) << ev;
  EXPECT_NE(ev.find("\"generated_text\":\""), std::string::npos) << ev;
}

TEST(Api, TgiGenerateBody) {
  GenRequest g =
      parse_ok(ApiKind::tgi_generate, R"({"inputs":"hello","parameters":{"max_new_tokens":2}})");
  Formatter f(g, "", 0);
  std::string text =
      std::string(token_at(g.text_seed, 1).text) + std::string(token_at(g.text_seed, 2).text);
  EXPECT_EQ(f.full_response(), "{\"generated_text\":\"" + text + "\"}");
  g.details = true;
  auto j = nlohmann::json::parse(Formatter(g, "", 0).full_response());
  EXPECT_EQ(j["details"]["finish_reason"], "length");
  EXPECT_EQ(j["details"]["generated_tokens"], 2);
  EXPECT_EQ(j["details"]["tokens"].size(), 2u);
}

TEST(Api, ChatStreamBytes) {
  GenRequest g = parse_ok(
      ApiKind::chat, R"({"model":"x","messages":[{"role":"user","content":"abcdefgh"}],)"
                     R"("max_tokens":2,"stream":true,"stream_options":{"include_usage":true}})");
  EXPECT_EQ(g.prompt_tokens, 2);
  EXPECT_TRUE(g.include_usage);
  Formatter f(g, "chatcmpl-1", 1700000000);
  EXPECT_EQ(
      f.stream_start(),
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
      "\"model\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":"
      "\"\"},"
      "\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  std::string t1(token_at(g.text_seed, 1).text), t2(token_at(g.text_seed, 2).text);
  EXPECT_EQ(
      f.token_event(1, false),
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
      "\"model\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
          t1 + "\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n");
  EXPECT_EQ(
      f.token_event(2, true),
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
      "\"model\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
          t2 + "\"},\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n");
  EXPECT_EQ(
      f.stream_end(),
      "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
      "\"model\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":2,\"total_tokens\":4,"
      "\"completion_tokens\":2}}\n\ndata: [DONE]\n\n");
}

TEST(Api, CompletionsStreamBytes) {
  GenRequest g = parse_ok(ApiKind::completions,
                          R"({"model":"m","prompt":"abcd","max_tokens":1,"stream":true})");
  Formatter f(g, "cmpl-1", 5);
  std::string t1(token_at(g.text_seed, 1).text);
  EXPECT_EQ(f.stream_start(), "");
  EXPECT_EQ(f.token_event(1, true),
            "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":5,\"model\":\"m\","
            "\"choices\":[{\"index\":0,\"text\":\"" +
                t1 +
                "\",\"logprobs\":null,\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n");
  EXPECT_EQ(f.stream_end(), "data: [DONE]\n\n");  // no usage chunk unless asked
}

TEST(Api, NonStreamOpenAiUsage) {
  GenRequest g = parse_ok(ApiKind::completions, R"({"prompt":"abcdefghi","max_tokens":3})");
  auto j = nlohmann::json::parse(Formatter(g, "cmpl-1", 5).full_response());
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 3);
  EXPECT_EQ(j["usage"]["completion_tokens"], 3);
  EXPECT_EQ(j["usage"]["total_tokens"], 6);
  EXPECT_EQ(j["choices"][0]["text"].get<std::string>().size(), 12u);
  GenRequest c = parse_ok(
      ApiKind::chat,
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"abcd"}]}],"max_completion_tokens":2})");
  auto k = nlohmann::json::parse(Formatter(c, "chatcmpl-1", 5).full_response());
  EXPECT_EQ(k["object"], "chat.completion");
  EXPECT_EQ(k["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(k["usage"]["prompt_tokens"], 1);
  EXPECT_EQ(k["usage"]["completion_tokens"], 2);
}

TEST(Api, Defaults) {
  EXPECT_EQ(parse_ok(ApiKind::completions, R"({"prompt":"abcd"})").max_new_tokens, 16);
  EXPECT_EQ(parse_ok(ApiKind::completions, R"({"prompt":[1,2,3]})").prompt_tokens, 3);
  // TGI and chat: up to the context limit.
  EXPECT_EQ(parse_ok(ApiKind::tgi_generate, R"({"inputs":"abcd"})").max_new_tokens, 2047);
  EXPECT_EQ(
      parse_ok(ApiKind::chat, R"({"messages":[{"role":"user","content":"abcd"}]})").max_new_tokens,
      2047);
}

TEST(Api, EosProbabilityStopsEarlyUnlessIgnored) {
  SimConfig c = cfg();
  c.text.eos_probability = 0.5;
  auto g = std::get<GenRequest>(
      parse_generate(ApiKind::completions, R"({"prompt":"a","max_tokens":50})", c));
  EXPECT_LT(g.output_tokens, 50);
  EXPECT_EQ(Formatter(g, "x", 0).finish_reason(), "stop");
  auto h = std::get<GenRequest>(parse_generate(
      ApiKind::completions, R"({"prompt":"a","max_tokens":50,"ignore_eos":true})", c));
  EXPECT_EQ(h.output_tokens, 50);
}

TEST(Api, TgiValidationErrors) {
  HttpError e = parse_err(ApiKind::tgi_generate, "{not json");
  EXPECT_EQ(e.status, 422);
  auto j = nlohmann::json::parse(e.body);
  EXPECT_EQ(j["error_type"], "validation");
  EXPECT_EQ(parse_err(ApiKind::tgi_generate, R"({"parameters":{}})").status, 422);
  EXPECT_EQ(parse_err(ApiKind::tgi_generate, R"({"inputs":5})").status, 422);
  EXPECT_EQ(
      parse_err(ApiKind::tgi_generate, R"({"inputs":"a","parameters":{"max_new_tokens":"x"}})")
          .status,
      422);
  EXPECT_EQ(parse_err(ApiKind::tgi_generate, R"({"inputs":"a","parameters":{"max_new_tokens":0}})")
                .status,
            422);
  EXPECT_EQ(parse_err(ApiKind::tgi_generate, "[1]").status, 422);
  HttpError big =
      parse_err(ApiKind::tgi_stream, "{\"inputs\":\"" + std::string(4097 + 4000, 'a') + "\"}");
  EXPECT_EQ(
      big.body,
      R"({"error":"Input validation error: `inputs` must have less than 1024 tokens. Given: 2025","error_type":"validation"})");
  HttpError total =
      parse_err(ApiKind::tgi_generate, R"({"inputs":"abcd","parameters":{"max_new_tokens":2048}})");
  EXPECT_EQ(nlohmann::json::parse(total.body)["error"],
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 1 "
            "`inputs` tokens and 2048 `max_new_tokens`");
}

TEST(Api, OpenAiValidationErrors) {
  HttpError e = parse_err(ApiKind::chat, "nope");
  EXPECT_EQ(e.status, 400);
  auto j = nlohmann::json::parse(e.body);
  EXPECT_EQ(j["object"], "error");
  EXPECT_EQ(j["type"], "BadRequestError");
  EXPECT_EQ(j["code"], 400);
  EXPECT_EQ(parse_err(ApiKind::chat, R"({"model":"m"})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::chat, R"({"messages":"hi"})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::chat, R"({"messages":[{"role":"user","content":1}]})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::completions, R"({"prompt":"a","max_tokens":"3"})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::completions, R"({"prompt":"a","stream":"yes"})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::completions, R"({"prompt":"a","max_tokens":0})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::completions, R"({"max_tokens":3})").status, 400);
  HttpError longp = parse_err(ApiKind::completions, R"({"prompt":"abcd","max_tokens":2048})");
  EXPECT_NE(longp.body.find("maximum context length is 2048 tokens"), std::string::npos)
      << longp.body;
}

TEST(Api, ErrorBodies) {
  EXPECT_EQ(error_body(ApiKind::tgi_generate, 429, "Model is overloaded"),
            R"({"error":"Model is overloaded","error_type":"overloaded"})");
  EXPECT_EQ(
      error_body(ApiKind::chat, 503, "busy"),
      R"({"object":"error","message":"busy","type":"ServiceUnavailableError","param":null,"code":503})");
  EXPECT_EQ(Formatter::tgi_stream_error("Model is overloaded", "overloaded"),
            "data:{\"error\":\"Model is overloaded\",\"error_type\":\"overloaded\"}\n\n");
}

TEST(Config, PresetsAndFaultRates) {
  EXPECT_EQ(preset_config("pytorch").sched.batching, BatchPolicy::none);
  EXPECT_TRUE(preset_config("fastapi").sched.serial_lock);
  EXPECT_EQ(preset_config("tgi").sched.max_batch_size, 32);
  EXPECT_THROW(preset_config("nope"), std::exception);
  auto r = parse_fault_rates("503=0.01,reset=0.001");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, "503");
  EXPECT_DOUBLE_EQ(r[1].rate, 0.001);
  EXPECT_THROW(parse_fault_rates("503"), std::exception);
  EXPECT_THROW(parse_fault_rates("999=0.1"), std::exception);
  EXPECT_THROW(parse_fault_rates("503=2"), std::exception);
  for (const auto& n : preset_names()) EXPECT_NO_THROW(validate(preset_config(n)));
}

}  // namespace
}  // namespace sb::sim
