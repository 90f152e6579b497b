// examples/backends/fastapi_server.py (FastAPI/uvicorn: TGI, OpenAI completions and chat, the
// study's custom route, /metrics; optional dynamic batching) benchmarked end to end by the
// servebench binary.
#include "backend_harness.h"
#include "crosscheck.h"

namespace {

using namespace sb::testing;

constexpr int kTokens = 12;

// Every API the server speaks, streamed and whole, at concurrency 1: token counts equal what
// the server generated, TTFT < e2e, and servebench's timings agree with the server's log.
TEST(FastApi, EveryApiCountsTokensAndTimesLikeTheServer) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("fastapi");
  Backend server("fastapi_server.py", {}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;

  struct Case {
    const char* name;
    std::string args;
    bool stream;
    const char* source;
  };
  std::ofstream(dir / "custom.json")
      << R"({"inputs": "{{prompt}}", "parameters": {"max_new_tokens": {{max_tokens}}}})";
  const std::string common =
      " -n 3 --concurrency 1 --input-length 24 --output-length " + std::to_string(kTokens);
  const Case cases[] = {
      {"tgi-stream", "--api tgi" + common, true, "details"},
      {"tgi-whole", "--api tgi --no-stream" + common, false, "details"},
      {"openai-stream", "--api openai" + common, true, "usage"},
      {"openai-whole", "--api openai --no-stream" + common, false, "usage"},
      {"chat-stream", "--api openai-chat" + common, true, "usage"},
      {"chat-whole", "--api openai-chat --no-stream" + common, false, "usage"},
      {"custom-route",
       "--api generic --no-stream --request-template " + (dir / "custom.json").string() +
           " --body-text-pointer /generated_text" + common,
       false, "usage"},
  };
  for (const Case& c : cases) {
    const size_t mark = server.log_lines();
    const ProfRun run = prof(server.url(), c.args, dir / c.name);
    ASSERT_EQ(run.cmd.code, 0) << c.name << "\n" << run.cmd.out << server.stderr_text();
    const auto log = server.log_since(mark, run.requests.size());
    check_against_server(run.requests, log, c.stream, kTokens, c.source, /*paired=*/true, c.name);
  }
  // Prometheus: the study's histogram, one series per route served.
  const HttpReply m = http_post(server.port(), "GET", "/metrics", "");
  EXPECT_EQ(m.status, 200);
  for (const char* route :
       {"/generate", "/generate_stream", "/v1/completions", "/v1/chat/completions"})
    EXPECT_NE(m.body.find(
                  std::string("api_request_duration_seconds_count{framework=\"fastapi\",route=\"") +
                  route + "\"}"),
              std::string::npos)
        << route << "\n"
        << m.body.substr(0, 2000);
  EXPECT_EQ(server.stop(), 0) << "the backend should exit 0 on SIGTERM\n" << server.stderr_text();
  fs::remove_all(dir);
}

// --batch-size 8: requests waiting together are generated in one batch and each is streamed.
TEST(FastApi, DynamicBatchingStreamsEveryRequestOfABatch) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("fastapi-batch");
  Backend server("fastapi_server.py", {"--batch-size", "8", "--batch-wait-ms", "50"}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;
  for (const char* api : {"openai-chat", "tgi"}) {
    const size_t mark = server.log_lines();
    const ProfRun run = prof(server.url(),
                             std::string("--api ") + api +
                                 " -n 8 --concurrency 4 --input-length 24 --output-length " +
                                 std::to_string(kTokens),
                             dir / api);
    ASSERT_EQ(run.cmd.code, 0) << run.cmd.out << server.stderr_text();
    const auto log = server.log_since(mark, run.requests.size());
    check_against_server(run.requests, log, true, kTokens,
                         std::string(api) == "tgi" ? "details" : "usage", /*paired=*/false, api);
    int batched = 0;
    for (const auto& l : log) batched += l["batch_size"].get<int>() > 1;
    EXPECT_GE(batched, 2) << api << ": at least one batch of several requests";
  }
  EXPECT_EQ(server.stop(), 0) << server.stderr_text();
  fs::remove_all(dir);
}

// Bad input: TGI routes (also the custom route) answer 422 with TGI's error body; OpenAI routes
// answer 400 in vLLM's shape. The server keeps serving.
TEST(FastApi, BadInputIs422WithATgiErrorBody) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("fastapi-bad");
  Backend server("fastapi_server.py", {"--max-new-tokens-limit", "64"}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;
  expect_tgi_validation_errors(server.port(), 64);
  for (const char* body :
       {"{not json", R"({"max_tokens": 4})", R"({"prompt": "hi", "max_tokens": 65})"}) {
    const HttpReply r = http_post(server.port(), "POST", "/v1/completions", body);
    EXPECT_EQ(r.status, 400) << body << ": " << r.body;
    EXPECT_EQ(json::parse(r.body, nullptr, false)["object"], "error") << r.body;
  }
  EXPECT_EQ(http_post(server.port(), "POST", "/generate",
                      R"({"inputs": "hello", "parameters": {"max_new_tokens": 64}})")
                .status,
            200);
  EXPECT_EQ(http_post(server.port(), "GET", "/health", "").status, 200);
  EXPECT_EQ(server.stop(), 0) << server.stderr_text();
  fs::remove_all(dir);
}

}  // namespace
