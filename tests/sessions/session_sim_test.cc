// Multi-turn sessions as users run them (`prof --session-concurrency`): each turn's request
// carries the earlier turns' real answers (read back from the bytes the client sent), the
// think time passes between a turn's answer and the next turn, the simulator's prefix cache
// serves the shared history more as the conversation grows, and bad session flags are usage
// errors (exit 2) naming the flag.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../e2e/sim_fixture.h"
#include "../support/temp_dir.h"
#include "recording_proxy.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path temp_dir(const std::string& name) {
  return ::sb::testing::fresh_temp_dir("session-" + name, /*create=*/false);
}

std::vector<json> read_requests(const fs::path& dir) {
  std::ifstream in(dir / "requests.jsonl");
  std::vector<json> reqs;
  for (std::string line; std::getline(in, line);) reqs.push_back(json::parse(line));
  return reqs;
}

json read_summary(const fs::path& dir) {
  std::ifstream in(dir / "summary.json");
  return json::parse(in);
}

TEST(SessionSim, EachTurnCarriesThePreviousAnswersAfterTheThinkTime) {
  auto sim = start_sim("instant");
  RecordingProxy proxy(net::parse_url(sim->url()).port);
  const fs::path dir = temp_dir("feedback");
  const CmdResult r = run_servebench(fmt::format(
      "prof --base-url {} --api openai-chat --model m --session-concurrency 2 --turns 3 "
      "--think-time 30ms -n 3 --input-length 16 --output-length 8 --save-outputs "
      "--session-header x-session-id --no-progress --quiet -o {}",
      proxy.url(), dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;

  // requests.jsonl by (session, turn), and the bodies sent, by request id.
  std::map<std::pair<int, int>, json> turns;
  for (const json& q : read_requests(dir)) {
    ASSERT_TRUE(q["ok"].get<bool>()) << q.dump();
    ASSERT_TRUE(q.contains("session_id")) << q.dump();
    EXPECT_EQ(q["session_turns"], 3);
    turns[{q["session_id"].get<int>(), q["turn"].get<int>()}] = q;
  }
  ASSERT_EQ(turns.size(), 9u);  // -n 3 sessions of 3 turns
  std::map<std::string, SentRequest> sent;
  for (SentRequest& s : proxy.requests()) sent[s.headers["x-request-id"]] = std::move(s);
  ASSERT_EQ(sent.size(), 9u);

  for (const auto& [key, q] : turns) {
    const auto [session, turn] = key;
    const SentRequest& s = sent.at(fmt::format("servebench-{}", q["id"].get<uint64_t>()));
    EXPECT_EQ(s.headers.at("x-session-id"), std::to_string(session));  // --session-header
    const json messages = json::parse(s.body).at("messages");
    ASSERT_EQ(messages.size(), static_cast<size_t>(2 * turn + 1)) << s.body;
    EXPECT_EQ(messages.back()["role"], "user");
    if (turn == 0) {
      EXPECT_EQ(q["history_tokens"], 0);
      continue;
    }
    // The previous turn's answer, as received, is this turn's last assistant message, after
    // exactly the previous turn's messages.
    const json& prev = turns.at({session, turn - 1});
    const std::string answer = prev["output"].get<std::string>();
    ASSERT_FALSE(answer.empty());
    EXPECT_EQ(messages[2 * turn - 1], (json{{"role", "assistant"}, {"content", answer}}));
    const SentRequest& prev_sent =
        sent.at(fmt::format("servebench-{}", prev["id"].get<uint64_t>()));
    const json prev_messages = json::parse(prev_sent.body).at("messages");
    for (size_t i = 0; i < prev_messages.size(); ++i) EXPECT_EQ(messages[i], prev_messages[i]);
    EXPECT_EQ(q["history_tokens"],
              prev["input_tokens"].get<int64_t>() + prev["output_tokens"].get<int64_t>());
    EXPECT_GT(q["input_tokens"].get<int64_t>(), q["history_tokens"].get<int64_t>());
    // The user thought for --think-time after the answer before this turn was due.
    EXPECT_GE(q["t_sched_s"].get<double>() - prev["t_end_s"].get<double>(), 0.030) << q.dump();
  }
  const json s = read_summary(dir);
  EXPECT_EQ(s["sessions"]["count"], 3);
  EXPECT_EQ(s["sessions"]["completed"], 3);
  EXPECT_EQ(s["sessions"]["turns_ok"], 9);
  EXPECT_EQ(s["config"]["load"]["sessions"]["think_time"], "fixed:0.03s");
  EXPECT_EQ(s["run"]["requests"]["total"], 9);
  fs::remove_all(dir);
}

// Against a vLLM-like simulator (prefix caching on, usage.prompt_tokens_details reported): the
// first turns share nothing, every later turn is served its history from the cache, more with
// each turn, and never more than the history the ideal cache would hold.
TEST(SessionSim, ServerCachedTokensGrowWithTheTurns) {
  const fs::path dir = temp_dir("cache");
  const CmdResult r = run_servebench(fmt::format(
      "prof --sim-engine vllm --sim-gpu H100 --sim-model llama-3.1-8b --sim-time-scale 0.05 "
      "--api openai-chat --session-concurrency 2 --turns 4 --think-time exp:5ms -n 4 "
      "--input-length 256 --output-length 64 --ignore-eos --no-progress --quiet -o {}",
      dir.string()));
  ASSERT_EQ(r.code, 0) << r.out;
  const json s = read_summary(dir)["sessions"];
  EXPECT_EQ(s["count"], 4);
  EXPECT_EQ(s["completed"], 4);
  EXPECT_EQ(s["turns_ok"], 16);
  EXPECT_EQ(s["duration_s"]["count"], 4);
  const json& by_turn = s["by_turn"];
  ASSERT_EQ(by_turn.size(), 4u) << s.dump();
  EXPECT_EQ(by_turn[0]["cached_tokens_sum"], 0) << s.dump();
  EXPECT_EQ(by_turn[0]["history_tokens_sum"], 0);
  for (size_t k = 0; k < by_turn.size(); ++k) {
    const json& t = by_turn[k];
    EXPECT_EQ(t["turn"], static_cast<int>(k));
    EXPECT_EQ(t["ok"], 4);
    EXPECT_EQ(t["cached_reported"], 4) << t.dump();
    EXPECT_TRUE(t["ttft_ms_p50"].is_number());
    if (k == 0) continue;
    const json& before = by_turn[k - 1];
    EXPECT_GT(t["input_tokens_mean"].get<double>(), before["input_tokens_mean"].get<double>());
    EXPECT_GT(t["cached_tokens_sum"].get<int64_t>(), before["cached_tokens_sum"].get<int64_t>())
        << s.dump();
    EXPECT_LE(t["cached_tokens_sum"].get<int64_t>(), t["history_tokens_sum"].get<int64_t>());
    EXPECT_GT(t["ideal_hit_rate"].get<double>(), before["ideal_hit_rate"].get<double>());
  }
  // Per request: the server's count is the history it shares with the previous turn.
  for (const json& q : read_requests(dir)) {
    if (q["turn"].get<int>() == 0) continue;
    EXPECT_GT(q["server_cached_tokens"].get<int64_t>(), 0) << q.dump();
  }
  fs::remove_all(dir);
}

TEST(SessionCli, BadSessionFlagsAreUsageErrorsNamingTheFlag) {
  const fs::path dir = temp_dir("bad");
  const std::string base =
      "prof --sim instant --api openai-chat -n 2 --no-progress -o " + dir.string();
  const std::pair<std::string, std::string> cases[] = {
      {"--session-concurrency 2 --think-time abc", "--think-time 'abc'"},
      {"--session-concurrency 2 --think-time uniform:3s-1s", "--think-time"},
      {"--session-concurrency 2 --turns 0", "--turns '0'"},
      {"--session-concurrency 2 --turns uniform:min=2,max=99999", "--turns"},
      {"--session-concurrency 0", "--session-concurrency"},
      {"--turns 3", "give --session-concurrency N too"},
      {"--session-concurrency 2 --concurrency 4", "--session-concurrency and --concurrency"},
      {"--session-concurrency 2 --request-rate 5", "--session-concurrency and --request-rate"},
      {"--session-concurrency 2 --session-header 'bad name'", "--session-header"},
  };
  for (const auto& [flags, want] : cases) {
    const CmdResult r = run_servebench(base + " " + flags);
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << flags << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(dir / "summary.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::testing
