// Users who give up (--abandon-after) against the simulator: a server that queues makes the
// later requests of an open loop wait past the users' patience; they end `abandoned` in
// requests.jsonl and summary.json, and the simulator sees their connections closed before
// their answers were sent. A generous wait abandons none.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../support/timing_slack.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRequests = 60;
constexpr int kOutputTokens = 20;

// The instant preset (1 ms decode steps) one request at a time: a 20-token answer takes
// ~20 ms, so the simulator serves ~50 requests/s and an open loop at 100/s queues, the n-th
// request waiting ~10 n ms for its first token.
std::unique_ptr<sim::Server> serial_sim() {
  sim::SimConfig c = sim::preset_config("instant");
  c.server.host = "127.0.0.1";
  c.server.port = 0;
  c.sched.max_batch_size = 1;
  auto s = std::make_unique<sim::Server>(c);
  s->start();
  return s;
}

struct ProfRun {
  CmdResult cmd;
  std::vector<json> requests;
  json summary;
};

// `prof` at 100 requests/s (constant arrivals) against `sim`, streaming TGI.
ProfRun prof_against(const sim::Server& sim, const std::string& extra, const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("servebench-abandon-{}-{}", name, getpid());
  fs::remove_all(dir);
  ProfRun r;
  r.cmd = run_servebench(fmt::format(
      "prof --base-url {} --api tgi --request-rate 100 --arrival constant -n {} "
      "--input-length 16 --output-length {} --goodput ttft:60000 --no-progress --quiet {} -o {}",
      sim.url(), kRequests, kOutputTokens, extra, dir.string()));
  std::ifstream jsonl(dir / "requests.jsonl");
  for (std::string line; std::getline(jsonl, line);) r.requests.push_back(json::parse(line));
  std::ifstream summary(dir / "summary.json");
  if (summary) r.summary = json::parse(summary);
  fs::remove_all(dir);
  return r;
}

TEST(AbandonSim, UsersWhoWaitPastTheirPatienceAbandonAndTheirConnectionsClose) {
  auto sim = serial_sim();
  const double after_s = 0.15 * sanitizer_slack();
  const ProfRun pr = prof_against(*sim, fmt::format("--abandon-after {}s", after_s), "some");
  // Failures do not fail prof (no --max-error-rate).
  ASSERT_EQ(pr.cmd.code, 0) << pr.cmd.out;
  ASSERT_EQ(pr.requests.size(), static_cast<size_t>(kRequests)) << pr.cmd.out;

  const auto trace = trace_by_id(*sim);
  int abandoned = 0, ok = 0;
  for (const json& r : pr.requests) {
    const std::string id = request_id(r.at("id").get<uint64_t>());
    if (r.at("ok").get<bool>()) {
      ++ok;
      ASSERT_EQ(trace.at(id).output_tokens, kOutputTokens) << id;
      continue;
    }
    ASSERT_EQ(r.at("error_class"), "abandoned") << r.dump();
    ++abandoned;
    EXPECT_NE(r.at("error").get<std::string>().find("--abandon-after"), std::string::npos);
    EXPECT_TRUE(r.at("ttft_ms").is_null()) << r.dump();
    // Given up when the wait, counted from the intended send time, ran out: not before, and
    // not much after.
    const double waited_s = r.at("t_end_s").get<double>() - r.at("t_sched_s").get<double>();
    EXPECT_GE(waited_s, after_s - 0.001) << id;
    EXPECT_LT(waited_s, after_s + 0.1 * slack()) << id;
    // The simulator saw the connection closed before it had sent the whole answer.
    const sim::TraceRecord& t = trace.at(id);
    EXPECT_EQ(t.error, "client_gone") << id;
    EXPECT_LT(t.output_tokens, kOutputTokens) << id;
  }
  // The queue made the later requests wait ~10 ms more each: some, not all, gave up.
  EXPECT_GT(abandoned, 0);
  EXPECT_GT(ok, 0);

  const json& s = pr.summary;
  ASSERT_TRUE(s.is_object()) << pr.cmd.out;
  EXPECT_EQ(s["run"]["requests"]["total"], kRequests);
  EXPECT_EQ(s["errors"]["abandoned"], abandoned);
  ASSERT_TRUE(s.contains("abandonment")) << s.dump();
  EXPECT_DOUBLE_EQ(s["abandonment"]["after_s"].get<double>(), after_s);
  EXPECT_EQ(s["abandonment"]["abandoned"], abandoned);
  EXPECT_DOUBLE_EQ(s["abandonment"]["rate"].get<double>(),
                   static_cast<double>(abandoned) / kRequests);
  EXPECT_DOUBLE_EQ(s["config"]["timeouts_s"]["abandon_after"].get<double>(), after_s);
  // Goodput under abandonment: with an SLO every ok request meets (ttft <= 60 s), the good
  // requests are exactly the ok ones; the abandoned never count.
  EXPECT_EQ(s["goodput"]["good"], ok);
  EXPECT_DOUBLE_EQ(s["goodput"]["fraction"].get<double>(), static_cast<double>(ok) / kRequests);
}

TEST(AbandonSim, AGenerousWaitAbandonsNone) {
  auto sim = serial_sim();
  const ProfRun pr = prof_against(*sim, "--abandon-after 30s", "none");
  ASSERT_EQ(pr.cmd.code, 0) << pr.cmd.out;
  ASSERT_EQ(pr.requests.size(), static_cast<size_t>(kRequests));
  for (const json& r : pr.requests) EXPECT_TRUE(r.at("ok").get<bool>()) << r.dump();
  const json& s = pr.summary;
  EXPECT_EQ(s["abandonment"]["abandoned"], 0);
  EXPECT_EQ(s["abandonment"]["rate"], 0.0);
  EXPECT_FALSE(s["errors"].contains("abandoned"));
  for (const auto& [id, t] : trace_by_id(*sim)) EXPECT_EQ(t.error, "") << id;
}

TEST(AbandonSim, ARequestQueuedInTheClientPastItsWaitIsNeverSent) {
  // --max-concurrency 1: requests wait in the client for the one slot, their intended send
  // times passing. The users' wait counts from those times, so the later ones give up before
  // they are sent, and the server never sees them. Each answer takes a third of the users'
  // patience (one token per ~1 ms step), so whatever slack() widens the patience to, the
  // client's queue outgrows it within a few requests: 30 arrivals 10 ms apart queue
  // 30 x (patience/3 - 10 ms) in all, more than the patience for any patience >= 100 ms.
  auto sim = serial_sim();
  auto cfg = config_for(*sim, protocol::Api::tgi);
  const int patience_ms = static_cast<int>(100 * slack());
  cfg.load.mode = engine::LoadMode::open;
  cfg.load.request_rate = 100;
  cfg.load.arrival = load::Arrival::constant;
  cfg.load.max_concurrency = 1;
  cfg.load.num_requests = 30;
  cfg.workers = 1;
  cfg.workload.output_tokens = std::max(kOutputTokens, patience_ms / 3);
  cfg.timeouts.abandon_after = std::chrono::milliseconds(patience_ms);
  const auto result = engine::run_benchmark(cfg, {});
  ASSERT_EQ(result.records.size(), 30u);
  const auto trace = trace_by_id(*sim);
  int unsent = 0, ok = 0;
  for (const auto& r : result.records) {
    if (r.ok()) {
      ++ok;
      continue;
    }
    ASSERT_EQ(r.error_class, ErrorClass::abandoned) << r.error;
    if (r.t_send_ns == metrics::kNoTime) {
      ++unsent;
      EXPECT_EQ(trace.count(request_id(r.id)), 0u) << r.id;
      EXPECT_NE(r.error.find("before it was sent"), std::string::npos) << r.error;
      EXPECT_GE(r.t_end_ns - r.t_sched_ns, cfg.timeouts.abandon_after.count());
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(unsent, 0);
}

}  // namespace
}  // namespace sb::testing
