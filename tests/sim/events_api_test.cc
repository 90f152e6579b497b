// The simulator's OpenAI Responses (/v1/responses) and Anthropic Messages (/v1/messages)
// modes: their bytes (Formatter, byte for byte), their request checks, and over HTTP the
// routes, usage against the trace, the anthropic-version header, and overload as 529.
#include <gtest/gtest.h>

#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "http_client.h"
#include "sim/api.h"
#include "sim/server.h"

namespace sb::sim {
namespace {

using nlohmann::json;
using testing::Conn;
using testing::Response;

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

// "event: NAME\ndata: JSON\n\n" events of a body: (name, parsed data) each.
std::vector<std::pair<std::string, json>> named_events(const std::string& body) {
  std::vector<std::pair<std::string, json>> out;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) break;
    const std::string ev = body.substr(pos, end - pos);
    pos = end + 2;
    const size_t nl = ev.find('\n');
    EXPECT_EQ(ev.rfind("event: ", 0), 0u) << ev;
    EXPECT_EQ(ev.compare(nl + 1, 6, "data: "), 0) << ev;
    out.emplace_back(ev.substr(7, nl - 7), json::parse(ev.substr(nl + 7)));
    EXPECT_EQ(out.back().second["type"], out.back().first) << ev;  // the name, repeated
  }
  EXPECT_EQ(pos, body.size()) << "trailing bytes";
  return out;
}

TEST(EventsApi, ParsesResponsesRequests) {
  // A string input is one user message; instructions one more (chat_tokens_per_message 0).
  GenRequest g =
      parse_ok(ApiKind::responses, R"({"model":"o4","input":"12345678","instructions":"abcd",)"
                                   R"("max_output_tokens":3,"stream":true})");
  EXPECT_EQ(g.prompt_tokens, 3);
  EXPECT_EQ(g.max_new_tokens, 3);
  EXPECT_TRUE(g.stream);
  EXPECT_EQ(g.model, "o4");
  g = parse_ok(
      ApiKind::responses,
      R"({"input":[{"role":"user","content":[{"type":"input_text","text":"abcdefgh"}]}]})");
  EXPECT_EQ(g.prompt_tokens, 2);
  EXPECT_FALSE(g.stream);
  EXPECT_EQ(g.max_new_tokens, cfg().sched.max_total_tokens - 2);  // what the context leaves
  HttpError e = parse_err(ApiKind::responses, R"({"model":"o4"})");
  EXPECT_EQ(e.status, 400);
  const json body = json::parse(e.body);
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["message"], "Missing required parameter: 'input'.");
  EXPECT_EQ(parse_err(ApiKind::responses, R"({"input":"a","max_output_tokens":0})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::responses, R"({"input":""})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::responses, R"({"input":[{"content":"x"}]})").status, 400);
}

TEST(EventsApi, ParsesAnthropicRequests) {
  GenRequest g = parse_ok(ApiKind::anthropic,
                          R"({"model":"claude","max_tokens":5,"system":"abcd",)"
                          R"("messages":[{"role":"user","content":"12345678"}],"stream":true})");
  EXPECT_EQ(g.prompt_tokens, 3);
  EXPECT_EQ(g.max_new_tokens, 5);
  EXPECT_TRUE(g.stream);
  EXPECT_EQ(g.model, "claude");
  // max_tokens is required: Anthropic's 400 invalid_request_error.
  HttpError e =
      parse_err(ApiKind::anthropic, R"({"messages":[{"role":"user","content":"hello"}]})");
  EXPECT_EQ(e.status, 400);
  const json body = json::parse(e.body);
  EXPECT_EQ(body["type"], "error");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["message"], "max_tokens: Field required");
  EXPECT_EQ(parse_err(ApiKind::anthropic, R"({"max_tokens":4})").status, 400);
  EXPECT_EQ(parse_err(ApiKind::anthropic, R"({"max_tokens":4,"messages":[]})").status, 400);
  // Beyond the context: 400.
  e = parse_err(ApiKind::anthropic,
                fmt::format(R"({{"max_tokens":{},"messages":[{{"role":"user","content":"a"}}]}})",
                            cfg().sched.max_total_tokens));
  EXPECT_EQ(e.status, 400);
}

TEST(EventsApi, ErrorBodiesAndOverloadStatus) {
  EXPECT_EQ(error_body(ApiKind::anthropic, 529, "Overloaded"),
            R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(json::parse(error_body(ApiKind::anthropic, 429, "x"))["error"]["type"],
            "rate_limit_error");
  EXPECT_EQ(json::parse(error_body(ApiKind::anthropic, 500, "x"))["error"]["type"], "api_error");
  EXPECT_EQ(
      error_body(ApiKind::responses, 503, "busy"),
      R"({"error":{"message":"busy","type":"server_error","param":null,"code":"overloaded"}})");
  EXPECT_EQ(json::parse(error_body(ApiKind::responses, 429, "x"))["error"]["code"],
            "rate_limit_exceeded");
  EXPECT_EQ(unadmitted_status(ApiKind::anthropic, true), 529);
  EXPECT_EQ(unadmitted_status(ApiKind::anthropic, false), 529);
  EXPECT_EQ(unadmitted_status(ApiKind::responses, true), 429);
  EXPECT_EQ(unadmitted_status(ApiKind::responses, false), 503);
}

TEST(EventsApi, AnthropicStreamBytes) {
  GenRequest g = parse_ok(
      ApiKind::anthropic,
      R"({"model":"claude","max_tokens":2,"messages":[{"role":"user","content":"12345678"}]})");
  Formatter f(g, "msg_01", 0);
  const Token t1 = token_at(g.text_seed, 1), t2 = token_at(g.text_seed, 2);
  EXPECT_EQ(f.stream_start(),
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
            "\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\","
            "\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{"
            "\"input_tokens\":2,\"output_tokens\":1}}}\n\n"
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
            "event: ping\ndata: {\"type\": \"ping\"}\n\n");
  EXPECT_EQ(f.token_event(1, false),
            fmt::format("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\","
                        "\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{}\"}}}}\n\n",
                        t1.text));
  f.token_event(2, true);
  EXPECT_EQ(f.stream_end(),
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            "\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\n"
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  const json whole = json::parse(f.full_response());
  EXPECT_EQ(whole["type"], "message");
  EXPECT_EQ(whole["content"][0]["text"], std::string(t1.text) + std::string(t2.text));
  EXPECT_EQ(whole["stop_reason"], "max_tokens");
  EXPECT_EQ(whole["usage"]["input_tokens"], 2);
  EXPECT_EQ(whole["usage"]["output_tokens"], 2);
}

TEST(EventsApi, ResponsesStreamBytes) {
  GenRequest g =
      parse_ok(ApiKind::responses, R"({"model":"o4","input":"12345678","max_output_tokens":2})");
  Formatter f(g, "resp_0a", 7);
  const Token t1 = token_at(g.text_seed, 1), t2 = token_at(g.text_seed, 2);
  EXPECT_EQ(f.token_event(2, true),
            fmt::format("event: response.output_text.delta\ndata: {{\"type\":"
                        "\"response.output_text.delta\",\"sequence_number\":5,\"item_id\":"
                        "\"msg_0a\",\"output_index\":0,\"content_index\":0,\"delta\":\"{}\","
                        "\"logprobs\":[]}}\n\n",
                        t2.text));
  Formatter f2(g, "resp_0a", 7);
  std::string body = f2.stream_start();
  body += f2.token_event(1, false);
  body += f2.token_event(2, true);
  body += f2.stream_end();
  const auto events = named_events(body);
  const std::vector<std::string> names = {
      "response.created",           "response.in_progress",
      "response.output_item.added", "response.content_part.added",
      "response.output_text.delta", "response.output_text.delta",
      "response.output_text.done",  "response.content_part.done",
      "response.output_item.done",  "response.incomplete"};  // max_output_tokens reached
  ASSERT_EQ(events.size(), names.size());
  const std::string text = std::string(t1.text) + std::string(t2.text);
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(events[i].first, names[i]);
    EXPECT_EQ(events[i].second["sequence_number"], i);
  }
  EXPECT_EQ(events[0].second["response"]["status"], "in_progress");
  EXPECT_TRUE(events[0].second["response"]["usage"].is_null());
  EXPECT_EQ(events[0].second["response"]["id"], "resp_0a");
  EXPECT_EQ(events[0].second["response"]["created_at"], 7);
  EXPECT_EQ(events[6].second["text"], text);
  const json& done = events[9].second["response"];
  EXPECT_EQ(done["status"], "incomplete");
  EXPECT_EQ(done["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(done["model"], "o4");
  EXPECT_EQ(done["output"][0]["content"][0]["text"], text);
  EXPECT_EQ(done["usage"]["input_tokens"], 2);
  EXPECT_EQ(done["usage"]["output_tokens"], 2);
  EXPECT_EQ(done["usage"]["total_tokens"], 4);
  EXPECT_FALSE(done["usage"].contains("input_tokens_details"));  // no per-request cache hits
  const json whole = json::parse(f2.full_response());
  EXPECT_EQ(whole["object"], "response");
  EXPECT_EQ(whole["status"], "incomplete");
  EXPECT_EQ(whole["output"][0]["content"][0]["text"], text);
  EXPECT_EQ(whole["usage"]["output_tokens"], 2);
}

TEST(EventsApi, ResponsesStoppedByEosIsCompleted) {
  SimConfig c = cfg();
  c.text.eos_probability = 0.5;
  GenRequest g;
  for (int seed = 0; seed < 100; ++seed) {
    auto r = parse_generate(
        ApiKind::responses,
        fmt::format(R"({{"input":"abcd","max_output_tokens":50,"seed":{}}})", seed), c);
    g = std::get<GenRequest>(r);
    if (g.output_tokens < g.max_new_tokens) break;
  }
  ASSERT_LT(g.output_tokens, g.max_new_tokens);
  Formatter f(g, "resp_1", 0);
  EXPECT_EQ(json::parse(f.full_response())["status"], "completed");
  EXPECT_TRUE(json::parse(f.full_response())["incomplete_details"].is_null());
  for (int64_t i = 1; i <= g.output_tokens; ++i) f.token_event(i, i == g.output_tokens);
  const auto events = named_events(f.stream_end());
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events.back().first, "response.completed");
  EXPECT_EQ(events.back().second["response"]["usage"]["output_tokens"], g.output_tokens);
}

class EventsApiServer : public ::testing::Test {
 protected:
  void start(SimConfig c) {
    c.model.name = "sim-model";
    server_ = std::make_unique<Server>(c);
    port_ = server_->start();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  Response post(const std::string& path, const std::string& body, const std::string& headers) {
    Conn c(port_);
    c.send("POST", path, body, headers);
    return c.read();
  }
  std::vector<TraceRecord> trace(size_t n) {
    for (int i = 0; i < 200 && server_->trace().size() < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return server_->trace();
  }
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
};

constexpr const char* kVersion = "anthropic-version: 2023-06-01\r\n";

TEST_F(EventsApiServer, MessagesStreamAndBodyWithUsage) {
  start(preset_config("instant"));
  const std::string req =
      R"({"model":"claude","max_tokens":4,"messages":[{"role":"user","content":"abcdefgh"}],)";
  Response s = post("/v1/messages", req + R"("stream":true})", kVersion);
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.status, 200);
  EXPECT_EQ(s.headers["content-type"], "text/event-stream; charset=utf-8");
  const auto events = named_events(s.body);
  ASSERT_EQ(events.size(), 3u + 4u + 3u);
  EXPECT_EQ(events[0].first, "message_start");
  EXPECT_EQ(events[0].second["message"]["usage"]["input_tokens"], 2);
  EXPECT_EQ(events[0].second["message"]["model"], "claude");
  EXPECT_EQ(events[2].first, "ping");
  std::string text;
  for (size_t i = 3; i < 7; ++i) {
    EXPECT_EQ(events[i].first, "content_block_delta");
    text += events[i].second["delta"]["text"].get<std::string>();
  }
  EXPECT_EQ(events[8].second["usage"]["output_tokens"], 4);
  EXPECT_EQ(events[8].second["delta"]["stop_reason"], "max_tokens");
  EXPECT_EQ(events[9].first, "message_stop");
  Response w = post("/v1/messages", req + R"("stream":false})", kVersion);
  EXPECT_EQ(w.status, 200);
  const json whole = json::parse(w.body);
  EXPECT_EQ(whole["content"][0]["text"], text);  // deterministic for a prompt
  EXPECT_EQ(whole["usage"]["output_tokens"], 4);
  const auto t = trace(2);
  ASSERT_EQ(t.size(), 2u);
  for (const auto& r : t) {
    EXPECT_EQ(r.api, "anthropic_messages");
    EXPECT_EQ(r.output_tokens, 4);
    EXPECT_EQ(r.prompt_tokens, 2);
  }
  EXPECT_TRUE(t[0].stream != t[1].stream);
}

TEST_F(EventsApiServer, MessagesNeedTheVersionHeader) {
  start(preset_config("instant"));
  Response r =
      post("/v1/messages", R"({"max_tokens":4,"messages":[{"role":"user","content":"abcd"}]})", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(json::parse(r.body)["error"]["message"], "anthropic-version: header is required");
  Response bad = post("/v1/messages", "{oops", kVersion);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["type"], "error");
}

TEST_F(EventsApiServer, ResponsesStreamAndBodyWithUsage) {
  start(preset_config("instant"));
  Response s =
      post("/v1/responses", R"({"input":"abcdefgh","max_output_tokens":3,"stream":true})", "");
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.status, 200);
  const auto events = named_events(s.body);
  ASSERT_EQ(events.size(), 4u + 3u + 4u);
  EXPECT_EQ(events.back().first, "response.incomplete");
  EXPECT_EQ(events.back().second["response"]["usage"]["output_tokens"], 3);
  EXPECT_EQ(events.back().second["response"]["usage"]["input_tokens"], 2);
  EXPECT_EQ(events.back().second["response"]["model"], "sim-model");
  const std::string id = events[0].second["response"]["id"];
  EXPECT_EQ(id.rfind("resp_", 0), 0u);
  Response w = post("/v1/responses", R"({"input":"abcdefgh","max_output_tokens":3})", "");
  EXPECT_EQ(w.status, 200);
  EXPECT_EQ(json::parse(w.body)["output"][0]["content"][0]["text"],
            events.back().second["response"]["output"][0]["content"][0]["text"]);
  EXPECT_EQ(post("/v1/responses", R"({"model":"m"})", "").status, 400);
}

TEST_F(EventsApiServer, OverloadAndFaultStatusInEachApisShape) {
  SimConfig c = preset_config("instant");
  c.cost.kv_capacity_tokens = 100;
  c.sched.kv_full = KvFullAction::reject;
  start(c);
  // Needs 1 + 200 tokens of KV > capacity: never fits.
  Response a = post(
      "/v1/messages",
      R"({"max_tokens":200,"messages":[{"role":"user","content":"a"}],"stream":true})", kVersion);
  EXPECT_EQ(a.status, 529);
  EXPECT_EQ(json::parse(a.body)["error"]["type"], "overloaded_error");
  Response o = post("/v1/responses", R"({"input":"a","max_output_tokens":200,"stream":true})", "");
  EXPECT_EQ(o.status, 503);
  EXPECT_EQ(json::parse(o.body)["error"]["type"], "server_error");
  Response f =
      post("/v1/messages", R"({"max_tokens":2,"messages":[{"role":"user","content":"a"}]})",
           std::string(kVersion) + "x-sim-fault: status=529\r\n");
  EXPECT_EQ(f.status, 529);
  EXPECT_EQ(json::parse(f.body)["error"]["type"], "overloaded_error");
  Response g = post("/v1/responses", R"({"input":"a","max_output_tokens":2})",
                    "x-sim-fault: status=429\r\n");
  EXPECT_EQ(g.status, 429);
  EXPECT_EQ(json::parse(g.body)["error"]["code"], "rate_limit_exceeded");
}

}  // namespace
}  // namespace sb::sim
