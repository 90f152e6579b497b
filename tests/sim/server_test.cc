// The simulator over real HTTP on 127.0.0.1 (ephemeral ports, bounded time).
#include "sim/server.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/clock.h"
#include "common/error.h"
#include "http_client.h"

namespace sb::sim {
namespace {

using nlohmann::json;
using testing::Conn;
using testing::Response;

SimConfig fast_config() {
  SimConfig c = preset_config("instant");
  c.model.name = "sim-model";
  return c;
}

// SSE data payloads of a body ("data:" with or without one space).
std::vector<std::string> sse_data(const std::string& body) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) break;
    std::string ev = body.substr(pos, end - pos);
    pos = end + 2;
    if (ev.rfind("data:", 0) == 0) {
      ev.erase(0, 5);
      if (!ev.empty() && ev[0] == ' ') ev.erase(0, 1);
      out.push_back(ev);
    }
  }
  return out;
}

class SimServer : public ::testing::Test {
 protected:
  void start(SimConfig c = fast_config()) {
    server_ = std::make_unique<Server>(c);
    port_ = server_->start();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  Response post(const std::string& path, const std::string& body, const std::string& headers = "") {
    Conn c(port_);
    c.send("POST", path, body, headers);
    return c.read();
  }
  // Waits until the server has recorded `n` requests (they finish after the response's bytes).
  std::vector<TraceRecord> trace(size_t n) {
    for (int i = 0; i < 200 && server_->trace().size() < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return server_->trace();
  }
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
};

TEST_F(SimServer, UrlAndHealth) {
  start();
  EXPECT_EQ(server_->url(), "http://127.0.0.1:" + std::to_string(port_));
  Conn c(port_);
  c.send("GET", "/health");
  Response r = c.read();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  c.send("GET", "/info");  // keep-alive: same connection
  Response info = c.read();
  EXPECT_EQ(info.status, 200);
  EXPECT_EQ(json::parse(info.body)["model_id"], "sim-model");
  c.send("GET", "/v1/models");
  Response models = c.read();
  EXPECT_EQ(json::parse(models.body)["data"][0]["id"], "sim-model");
}

TEST_F(SimServer, TgiGenerateStream) {
  start();
  Conn c(port_);
  c.send("POST", "/generate_stream",
         R"({"inputs":"hello world!","parameters":{"max_new_tokens":5,"details":true}})",
         "x-request-id: abc\r\n");
  Response r = c.read();
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/event-stream");
  EXPECT_EQ(r.body.rfind("data:{", 0), 0u);  // no space after data:
  auto ev = sse_data(r.body);
  ASSERT_EQ(ev.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    auto j = json::parse(ev[i]);
    EXPECT_EQ(j["index"], i + 1);
    EXPECT_TRUE(j["generated_text"].is_null());
  }
  auto last = json::parse(ev[4]);
  EXPECT_EQ(last["generated_text"].get<std::string>().size(), 20u);
  EXPECT_EQ(last["details"]["generated_tokens"], 5);
  EXPECT_EQ(last["details"]["input_length"], 3);
  EXPECT_EQ(last["details"]["finish_reason"], "length");
  auto t = trace(1);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].request_id, "abc");
  EXPECT_EQ(t[0].api, "tgi_generate_stream");
  EXPECT_EQ(t[0].output_tokens, 5);
  EXPECT_EQ(t[0].prompt_tokens, 3);
  EXPECT_EQ(t[0].token_ns.size(), 5u);
  EXPECT_EQ(t[0].batch_sizes.size(), 5u);
  EXPECT_GE(t[0].admission_ns, t[0].arrival_ns);
  EXPECT_GE(t[0].first_token_ns, t[0].admission_ns);
  EXPECT_EQ(t[0].first_token_ns, t[0].token_ns[0]);
  EXPECT_GE(t[0].end_ns, t[0].token_ns.back());
  for (size_t i = 0; i < 5; ++i) EXPECT_GE(t[0].token_ns[i], t[0].token_due_ns[i]);
  EXPECT_EQ(t[0].status, 200);
  EXPECT_EQ(t[0].error, "");
  // Timestamps are steady_clock nanoseconds since its epoch.
  int64_t now = Clock::now().time_since_epoch().count();
  EXPECT_LE(t[0].end_ns, now);
  EXPECT_GT(t[0].arrival_ns, now - int64_t{60'000'000'000});
}

// A client that stops reading: the server's non-blocking token sends meet a full socket and
// finish their bytes later, in order (sim/engine_mailbox.h's fast path, taken in part).
TEST_F(SimServer, AClientThatPausesReadingGetsEveryTokenOnceInOrder) {
  SimConfig c = fast_config();
  c.cost.decode_step_ms = 0.005;  // 40,000 tokens (4 MB) in 0.2 s: more than the buffers hold
  start(c);
  Conn conn(port_, 5000, 4096);
  const int n = 40000;
  conn.send("POST", "/generate_stream",
            R"({"inputs":"hello","parameters":{"max_new_tokens":)" + std::to_string(n) + "}}");
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // every token due by now
  Response r = conn.read();
  ASSERT_TRUE(r.complete);
  auto ev = sse_data(r.body);
  ASSERT_EQ(ev.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_EQ(json::parse(ev[i])["index"], i + 1) << "event " << i;
  auto t = trace(1);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].error, "");
  ASSERT_EQ(t[0].token_ns.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_GE(t[0].token_ns[i], t[0].token_due_ns[i]) << "token " << i;
    if (i > 0) {
      EXPECT_GE(t[0].token_ns[i], t[0].token_ns[i - 1]) << "token " << i;
    }
  }
  // The stall shows in the trace: the last token went well after it was due.
  EXPECT_GT(t[0].token_ns.back() - t[0].token_due_ns.back(), int64_t{50'000'000});
}

TEST_F(SimServer, ExpectContinue) {
  start();
  Conn c(port_);
  std::string body = R"({"inputs":"abcd","parameters":{"max_new_tokens":2}})";
  c.send_raw(
      "POST /generate HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
      "expect: 100-continue\r\ncontent-length: " +
      std::to_string(body.size()) + "\r\n\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  c.send_raw(body);
  Response r = c.read();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(json::parse(r.body)["generated_text"].get<std::string>().size(), 8u);
}

TEST_F(SimServer, TgiGenerate) {
  start();
  Response r = post("/generate", R"({"inputs":"abcd","parameters":{"max_new_tokens":4}})");
  EXPECT_EQ(r.status, 200);
  auto j = json::parse(r.body);
  EXPECT_EQ(j["generated_text"].get<std::string>().size(), 16u);
  EXPECT_FALSE(j.contains("details"));
  EXPECT_EQ(r.headers["x-generated-tokens"], "4");
  EXPECT_EQ(r.headers["x-prompt-tokens"], "1");
}

TEST_F(SimServer, ChatStreamWithUsage) {
  start();
  Response r =
      post("/v1/chat/completions",
           R"({"model":"x","messages":[{"role":"user","content":"abcdefgh"}],"max_tokens":3,)"
           R"("stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.rfind("data: {", 0), 0u);
  auto ev = sse_data(r.body);
  ASSERT_EQ(ev.size(), 6u);  // role, 3 tokens, usage, [DONE]
  EXPECT_EQ(json::parse(ev[0])["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(json::parse(ev[3])["choices"][0]["finish_reason"], "length");
  auto usage = json::parse(ev[4]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["prompt_tokens"], 2);
  EXPECT_EQ(usage["usage"]["completion_tokens"], 3);
  EXPECT_EQ(usage["model"], "x");
  EXPECT_EQ(ev[5], "[DONE]");
}

TEST_F(SimServer, CompletionsNonStreamAndStream) {
  start();
  Response r = post("/v1/completions", R"({"model":"m","prompt":"abcdefgh","max_tokens":7})");
  EXPECT_EQ(r.status, 200);
  auto j = json::parse(r.body);
  EXPECT_EQ(j["usage"]["completion_tokens"], 7);
  EXPECT_EQ(j["choices"][0]["text"].get<std::string>().size(), 28u);
  Response s = post("/v1/completions", R"({"prompt":"abcdefgh","max_tokens":7,"stream":true})");
  auto ev = sse_data(s.body);
  ASSERT_EQ(ev.size(), 8u);
  EXPECT_EQ(ev.back(), "[DONE]");
  std::string text;
  for (size_t i = 0; i + 1 < ev.size(); ++i)
    text += json::parse(ev[i])["choices"][0]["text"].get<std::string>();
  EXPECT_EQ(text, j["choices"][0]["text"].get<std::string>());  // deterministic for a prompt
}

TEST_F(SimServer, ManyConcurrentStreamsShareBatches) {
  start();
  constexpr int kConns = 40;
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < kConns; ++i) {
    conns.push_back(std::make_unique<Conn>(port_));
    conns.back()->send("POST", "/generate_stream",
                       R"({"inputs":"abcd","parameters":{"max_new_tokens":100}})");
  }
  for (auto& c : conns) {
    Response r = c->read();
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(sse_data(r.body).size(), 100u);
  }
  auto t = trace(kConns);
  ASSERT_EQ(t.size(), static_cast<size_t>(kConns));
  int max_batch = 0;
  for (const auto& rec : t)
    for (int b : rec.batch_sizes) max_batch = std::max(max_batch, b);
  EXPECT_GT(max_batch, 1);
}

TEST_F(SimServer, TimingFollowsTheModel) {
  SimConfig c = fast_config();
  c.cost.decode_step_ms = 20;
  c.server.time_scale = 0.5;  // 10 ms per step
  start(c);
  post("/generate_stream", R"({"inputs":"abcd","parameters":{"max_new_tokens":10}})");
  auto t = trace(1);
  ASSERT_EQ(t.size(), 1u);
  ASSERT_EQ(t[0].token_due_ns.size(), 10u);
  for (size_t i = 1; i < 10; ++i)
    EXPECT_NEAR((t[0].token_due_ns[i] - t[0].token_due_ns[i - 1]) / 1e6, 10.0, 0.01);
  // Writes follow the model's times; the bound is loose for loaded CI machines and sanitizers.
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_GE(t[0].token_ns[i], t[0].token_due_ns[i]);
    EXPECT_LT((t[0].token_ns[i] - t[0].token_due_ns[i]) / 1e6, 100.0);
  }
}

TEST_F(SimServer, BadInputs) {
  SimConfig c = fast_config();
  c.server.max_body_bytes = 1000;
  start(c);
  Response bad = post("/generate", "{oops");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(json::parse(bad.body)["error_type"], "validation");
  Response missing = post("/v1/chat/completions", R"({"model":"m"})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(json::parse(missing.body)["type"], "BadRequestError");
  Response big = post("/v1/completions", "{\"prompt\":\"" + std::string(2000, 'a') + "\"}");
  EXPECT_EQ(big.status, 413);
  Response nf = post("/nope", "{}");
  EXPECT_EQ(nf.status, 404);
  Response nf2 = post("/v1/nope", "{}");
  EXPECT_EQ(nf2.status, 404);
  EXPECT_EQ(nf2.body, R"({"detail":"Not Found"})");
  // TGI streams report semantic validation errors in-stream after HTTP 200.
  Response sv = post("/generate_stream", R"({"inputs":"a","parameters":{"max_new_tokens":0}})");
  EXPECT_EQ(sv.status, 200);
  ASSERT_EQ(sse_data(sv.body).size(), 1u);
  EXPECT_EQ(json::parse(sse_data(sv.body)[0])["error_type"], "validation");
  Conn g(port_);
  g.send("GET", "/generate");
  EXPECT_EQ(g.read().status, 405);
  Conn junk(port_);
  junk.send_raw("this is not http\r\n\r\n");
  Response jr = junk.read();
  EXPECT_EQ(jr.status, 400);
  // Still serving.
  EXPECT_EQ(post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":1}})").status, 200);
}

TEST_F(SimServer, FaultStatus) {
  start();
  for (int code : {429, 500, 503, 408, 422}) {
    Response t = post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":2}})",
                      "x-sim-fault: status=" + std::to_string(code) + "\r\n");
    EXPECT_EQ(t.status, code);
    EXPECT_TRUE(json::parse(t.body).contains("error_type"));
    Response o = post("/v1/completions", R"({"prompt":"a","max_tokens":2})",
                      "x-sim-fault: status=" + std::to_string(code) + "\r\n");
    EXPECT_EQ(o.status, code);
    EXPECT_EQ(json::parse(o.body)["code"], code);
  }
  EXPECT_EQ(post("/generate", R"({"inputs":"a"})", "x-sim-fault: bogus=1\r\n").status, 422);
}

TEST_F(SimServer, FaultDisconnectAndReset) {
  start();
  {
    Conn c(port_);
    c.send("POST", "/generate_stream", R"({"inputs":"a","parameters":{"max_new_tokens":10}})",
           "x-sim-fault: disconnect_after=3\r\n");
    Response r = c.read();
    EXPECT_FALSE(r.complete);
    EXPECT_TRUE(r.closed);
    EXPECT_EQ(sse_data(r.body).size(), 3u);
  }
  {
    Conn c(port_);
    c.send("POST", "/v1/chat/completions",
           R"({"messages":[{"role":"user","content":"a"}],"max_tokens":10,"stream":true})",
           "x-sim-fault: reset_after=2\r\n");
    Response r = c.read();
    EXPECT_FALSE(r.complete);
    EXPECT_TRUE(r.reset || r.closed);
  }
  auto t = trace(2);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].error, "fault:disconnect");
  EXPECT_EQ(t[0].output_tokens, 3);
}

TEST_F(SimServer, FaultMalformedStallAndSlowFirstByte) {
  start();
  Response m = post("/generate_stream", R"({"inputs":"a","parameters":{"max_new_tokens":4}})",
                    "x-sim-fault: malformed_after=2\r\n");
  auto ev = sse_data(m.body);
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_FALSE(json::accept(ev[2]));
  EXPECT_EQ(json::parse(ev[3])["index"], 3);

  Response cut = post("/v1/completions", R"({"prompt":"a","max_tokens":3})",
                      "x-sim-fault: malformed_after=1\r\n");
  EXPECT_EQ(cut.status, 200);
  EXPECT_FALSE(json::accept(cut.body));

  auto t0 = Clock::now();
  Conn c(port_);
  c.send("POST", "/generate_stream", R"({"inputs":"a","parameters":{"max_new_tokens":3}})",
         "x-sim-fault: stall_ms=150,stall_after=1\r\n");
  std::vector<TimePoint> arrivals;
  Response s = c.read([&](const std::string&) { arrivals.push_back(Clock::now()); });
  ASSERT_EQ(arrivals.size(), 3u);
  EXPECT_GE(to_ms(arrivals[1] - arrivals[0]), 140.0);

  auto t1 = Clock::now();
  Response slow = post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":1}})",
                       "x-sim-fault: slow_first_byte_ms=120\r\n");
  EXPECT_EQ(slow.status, 200);
  EXPECT_GE(to_ms(Clock::now() - t1), 115.0);
  (void)t0;
}

TEST_F(SimServer, FaultNeverRespond) {
  start();
  Conn c(port_, 200);
  c.send("POST", "/generate", R"({"inputs":"a","parameters":{"max_new_tokens":1}})",
         "x-sim-fault: never_respond=1\r\n");
  Response r = c.read();
  EXPECT_EQ(r.status, 0);  // nothing within 200 ms
}

TEST_F(SimServer, GlobalFaultRatesAreSeeded) {
  SimConfig c = fast_config();
  c.faults = parse_fault_rates("503=0.5");
  start(c);
  int fails = 0;
  std::vector<int> codes;
  for (int i = 0; i < 40; ++i) {
    int s = post("/v1/completions", R"({"prompt":"a","max_tokens":1})").status;
    codes.push_back(s);
    fails += s == 503;
  }
  EXPECT_GT(fails, 5);
  EXPECT_LT(fails, 35);
  server_->stop();
  server_ = std::make_unique<Server>(c);
  port_ = server_->start();
  for (int i = 0; i < 40; ++i)
    EXPECT_EQ(post("/v1/completions", R"({"prompt":"a","max_tokens":1})").status, codes[i]);
}

TEST_F(SimServer, OverloadTgiAndOpenAi) {
  SimConfig c = fast_config();
  c.cost.kv_capacity_tokens = 100;
  c.sched.kv_full = KvFullAction::reject;
  start(c);
  // Needs 1 + 200 tokens of KV > capacity: never fits.
  Response g = post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":200}})");
  EXPECT_EQ(g.status, 429);
  EXPECT_EQ(json::parse(g.body)["error_type"], "overloaded");
  Response s = post("/generate_stream", R"({"inputs":"a","parameters":{"max_new_tokens":200}})");
  EXPECT_EQ(s.status, 200);
  auto ev = sse_data(s.body);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(json::parse(ev[0])["error_type"], "overloaded");
  Response o =
      post("/v1/chat/completions",
           R"({"messages":[{"role":"user","content":"a"}],"max_tokens":200,"stream":true})");
  EXPECT_EQ(o.status, 503);
}

TEST_F(SimServer, MetricsExposition) {
  start();
  post("/v1/completions", R"({"prompt":"abcd","max_tokens":3})");
  Conn c(port_);
  c.send("GET", "/metrics");
  Response r = c.read();
  EXPECT_EQ(r.status, 200);
  for (const char* name :
       {"tgi_queue_size ", "tgi_batch_current_size ", "tgi_batch_current_max_tokens ",
        "tgi_request_duration_bucket{le=\"+Inf\"} 1", "tgi_request_count 1",
        "vllm:num_requests_running{model_name=\"sim-model\"} 0",
        "vllm:num_requests_waiting{model_name=\"sim-model\"} 0", "vllm:kv_cache_usage_perc{",
        "vllm:prompt_tokens_total{model_name=\"sim-model\"} 1",
        "vllm:generation_tokens_total{model_name=\"sim-model\"} 3",
        "vllm:time_to_first_token_seconds_count{model_name=\"sim-model\"} 1",
        "DCGM_FI_DEV_GPU_UTIL{", "DCGM_FI_DEV_FB_USED{", "DCGM_FI_DEV_POWER_USAGE{",
        "DCGM_FI_DEV_MEM_COPY_UTIL{"})
    EXPECT_NE(r.body.find(name), std::string::npos) << name;
}

TEST_F(SimServer, TraceFileAndRestart) {
  std::string path = ::testing::TempDir() + "sim_trace_test.jsonl";
  std::remove(path.c_str());
  SimConfig c = fast_config();
  c.server.trace_path = path;
  start(c);
  post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":2}})", "x-request-id: r1\r\n");
  trace(1);
  server_->stop();
  port_ = server_->start();  // restartable
  post("/generate", R"({"inputs":"a","parameters":{"max_new_tokens":2}})", "x-request-id: r2\r\n");
  trace(2);
  server_->stop();
  std::ifstream in(path);
  std::string line;
  std::vector<json> lines;
  while (std::getline(in, line)) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["request_id"], "r1");
  EXPECT_EQ(lines[1]["request_id"], "r2");
  EXPECT_EQ(lines[1]["token_ns"].size(), 2u);
  EXPECT_EQ(lines[1]["output_tokens"], 2);
}

TEST(SimServers, ManyInstancesInOneProcess) {
  std::vector<std::unique_ptr<Server>> servers;
  for (int i = 0; i < 4; ++i) {
    servers.push_back(std::make_unique<Server>(preset_config("instant")));
    servers.back()->start();
  }
  for (auto& s : servers) {
    uint16_t port = static_cast<uint16_t>(std::stoi(s->url().substr(s->url().rfind(':') + 1)));
    Conn c(port);
    c.send("GET", "/health");
    EXPECT_EQ(c.read().status, 200);
  }
  for (auto& s : servers) s->stop();
}

}  // namespace
}  // namespace sb::sim

namespace sb::sim {
namespace {

TEST(SimServers, BusyPortThrowsAndBadConfigIsRejected) {
  Server a(preset_config("instant"));
  uint16_t port = a.start();
  SimConfig c = preset_config("instant");
  c.server.port = port;
  Server b(c);
  EXPECT_THROW(b.start(), sb::Error);
  SimConfig bad = preset_config("instant");
  bad.server.time_scale = 0;
  Server s(bad);
  EXPECT_THROW(s.start(), sb::Error);
  a.stop();
}

}  // namespace
}  // namespace sb::sim
