// examples/backends/pytorch_native.py (standard-library HTTP server, TGI API, one request at a
// time or manual static batches) benchmarked end to end by the servebench binary.
#include "backend_harness.h"
#include "crosscheck.h"

namespace {

using namespace sb::testing;

constexpr int kTokens = 12;

// The TGI API as the study's native server speaks it: streams and whole responses, and the
// study's custom route (the same /generate body) through --api generic. Concurrency 1, so
// each client request pairs with one server log line for the timing cross-check.
TEST(PytorchNative, EveryApiCountsTokensAndTimesLikeTheServer) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("native");
  Backend server("pytorch_native.py", {}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;

  struct Case {
    const char* name;
    std::string args;
    bool stream;
    const char* source;  // where servebench reads the output token count from
  };
  std::ofstream(dir / "custom.json")
      << R"({"inputs": "{{prompt}}", "parameters": {"max_new_tokens": {{max_tokens}}}})";
  const std::string common =
      " --concurrency 1 --input-length 24 --output-length " + std::to_string(kTokens);
  const Case cases[] = {
      {"tgi-stream", "--api tgi -n 5" + common, true, "details"},
      {"tgi-whole", "--api tgi --no-stream -n 3" + common, false, "details"},
      {"custom-route",
       "--api generic --no-stream --request-template " + (dir / "custom.json").string() +
           " --body-text-pointer /generated_text -n 3" + common,
       false, "usage"},
  };
  for (const Case& c : cases) {
    const size_t mark = server.log_lines();
    const ProfRun run = prof(server.url(), c.args, dir / c.name);
    ASSERT_EQ(run.cmd.code, 0) << c.name << "\n" << run.cmd.out << server.stderr_text();
    const auto log = server.log_since(mark, run.requests.size());
    check_against_server(run.requests, log, c.stream, kTokens, c.source, /*paired=*/true, c.name);
  }
  // One request at a time: every log line says batch size 1 and no two generations overlap.
  const auto all = server.log_since(0, 0);
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_EQ(all[i]["batch_size"], 1);
    EXPECT_GE(all[i]["start_mono_s"].get<double>(), all[i - 1]["last_token_mono_s"].get<double>());
  }
  EXPECT_EQ(server.stop(), 0) << "the backend should exit 0 on SIGTERM\n" << server.stderr_text();
  fs::remove_all(dir);
}

// --static-batch 4: concurrent requests are generated together, the tokens still add up.
TEST(PytorchNative, StaticBatchingGeneratesConcurrentRequestsTogether) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("native-batch");
  Backend server("pytorch_native.py", {"--static-batch", "4", "--batch-timeout-ms", "300"}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;
  const ProfRun run = prof(
      server.url(),
      "--api tgi -n 8 --concurrency 4 --input-length 24 --output-length " + std::to_string(kTokens),
      dir / "run");
  ASSERT_EQ(run.cmd.code, 0) << run.cmd.out << server.stderr_text();
  const auto log = server.log_since(0, run.requests.size());
  check_against_server(run.requests, log, true, kTokens, "details", /*paired=*/false,
                       "static batch");
  int batched = 0;
  for (const auto& l : log) batched += l["batch_size"].get<int>() > 1;
  EXPECT_GE(batched, 4) << "at least one batch of several requests";
  EXPECT_EQ(server.stop(), 0) << server.stderr_text();
  fs::remove_all(dir);
}

// Bad input: 422 with TGI's error body on both routes; the server keeps serving.
TEST(PytorchNative, BadInputIs422WithATgiErrorBody) {
  SKIP_WITHOUT_BACKEND_DEPS();
  const auto dir = scratch_dir("native-bad");
  Backend server("pytorch_native.py", {"--max-new-tokens-limit", "64"}, dir);
  const std::string err = server.start();
  ASSERT_EQ(err, "") << err;
  expect_tgi_validation_errors(server.port(), 64);
  EXPECT_EQ(http_post(server.port(), "POST", "/generate",
                      R"({"inputs": "hello", "parameters": {"max_new_tokens": 64}})")
                .status,
            200);
  EXPECT_EQ(http_post(server.port(), "GET", "/health", "").status, 200);
  const HttpReply info = http_post(server.port(), "GET", "/info", "");
  EXPECT_EQ(json::parse(info.body, nullptr, false)["max_new_tokens_limit"], 64) << info.body;
  EXPECT_EQ(server.stop(), 0) << server.stderr_text();
  fs::remove_all(dir);
}

}  // namespace
