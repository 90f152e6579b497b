// Where the time goes (issue 17) against the simulator's own timeline: the server times a
// request reports (TGI's x-*-time headers, llama.cpp's timings) and the run-level means of
// vLLM's request-phase histograms equal the trace; the client's phases and the server's
// components add up to the measured e2e; a deliberately slow client is marked client_limited.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/config_json.h"
#include "metrics/run_summary.h"
#include "run_binary.h"
#include "sim_fixture.h"

namespace sb::testing {
namespace {

using protocol::Api;

// The tgi preset at 1/20 of its step times with batches of 2: 8 streams queue.
std::unique_ptr<sim::Server> queueing_sim() {
  sim::SimConfig c = sim::preset_config("tgi");
  c.server.host = "127.0.0.1";
  c.server.port = 0;
  c.server.time_scale = 0.05;
  c.sched.max_batch_size = 2;
  auto s = std::make_unique<sim::Server>(c);
  s->start();
  return s;
}

double ms_between(int64_t from_ns, int64_t to_ns) {
  return static_cast<double>(to_ns - from_ns) / 1e6;
}

TEST(DecompositionSim, TgiHeadersEqualTheTraceAndAddUpToE2e) {
  auto sim = queueing_sim();
  auto cfg = config_for(*sim, Api::tgi, /*stream=*/false);
  cfg.load.concurrency = 8;
  cfg.load.num_requests = 24;
  const auto result = engine::run_benchmark(cfg, {});
  const auto trace = trace_by_id(*sim);
  ASSERT_EQ(result.records.size(), 24u);
  double max_queue_ms = 0;
  int reused = 0;
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << r.error;
    const sim::TraceRecord& t = trace.at(request_id(r.id));
    const ServerTimes& s = r.server;
    ASSERT_EQ(s.source, ServerTimingSource::tgi_headers) << r.id;
    // Whole milliseconds on the wire: within 1 ms of the simulator's own instants (the
    // total ends when the body was built, before it was written: reply_ns).
    EXPECT_NEAR(s.queue_ms, ms_between(t.arrival_ns, t.admission_ns), 1.0) << r.id;
    EXPECT_NEAR(s.inference_ms, ms_between(t.admission_ns, t.reply_ns), 1.0) << r.id;
    EXPECT_NEAR(s.total_ms, ms_between(t.arrival_ns, t.reply_ns), 1.0) << r.id;
    EXPECT_LE(t.reply_ns, t.end_ns);
    // client + network + queue + inference = the e2e the client measured, up to the
    // headers' rounding: three values each rounded on its own to whole milliseconds, so
    // queue + inference and total can differ by one (exactly 1, plus the doubles' error).
    const auto e2e = r.e2e_ms();
    const auto client = r.client_network_ms();
    ASSERT_TRUE(e2e && client);
    EXPECT_LE(std::abs(s.queue_ms + s.inference_ms - s.total_ms), 1.0) << r.id;
    EXPECT_NEAR(*client + s.queue_ms + s.inference_ms, *e2e, 1.0 + 1e-6) << r.id;
    EXPECT_GE(*client, -1.0) << "the server counted more time than the client saw";
    max_queue_ms = std::max(max_queue_ms, s.queue_ms);
    // The client's phases, in order.
    EXPECT_GE(r.client.pool_wait_ms, 0);
    EXPECT_GE(r.client.write_ms, 0);
    EXPECT_GE(r.client.ttfb_ms, r.client.write_ms);
    EXPECT_GE(r.client.headers_ms, r.client.ttfb_ms);
    EXPECT_LE(r.client.headers_ms, *e2e + 0.001);
    if (r.client.reused) {
      ++reused;
      EXPECT_LT(r.client.connect_ms, 0);
    } else {
      EXPECT_GE(r.client.connect_ms, 0);
    }
  }
  EXPECT_GT(max_queue_ms, 1.0) << "8 streams on batches of 2 should have queued";
  EXPECT_GE(reused, 24 - 8);  // one new connection per slot, then keep-alive
}

TEST(DecompositionSim, LlamaCppTimingsEqualTheTrace) {
  auto sim = queueing_sim();
  auto cfg = config_for(*sim, Api::llamacpp, /*stream=*/true);
  cfg.load.concurrency = 6;
  cfg.load.num_requests = 18;
  const auto result = engine::run_benchmark(cfg, {});
  const auto trace = trace_by_id(*sim);
  ASSERT_EQ(result.records.size(), 18u);
  for (const auto& r : result.records) {
    ASSERT_TRUE(r.ok()) << r.error;
    const sim::TraceRecord& t = trace.at(request_id(r.id));
    ASSERT_EQ(r.server.source, ServerTimingSource::llamacpp_timings);
    EXPECT_NEAR(r.server.prefill_ms, ms_between(t.admission_ns, t.token_due_ns.front()), 1.0);
    EXPECT_NEAR(r.server.decode_ms, ms_between(t.token_due_ns.front(), t.token_due_ns.back()), 1.0);
    EXPECT_LT(r.server.total_ms, 0);  // llama.cpp reports no total: no client_network_ms
    EXPECT_FALSE(r.client_network_ms());
    EXPECT_GE(*r.e2e_ms() + 1.0, r.server.prefill_ms + r.server.decode_ms);
  }
}

// vLLM reports no per-request times: the run-level means come from its histograms' deltas
// between the run's first and last /metrics scrape (the last taken after the load).
TEST(DecompositionSim, VllmHistogramMeansEqualTheTraceMeans) {
  auto sim = queueing_sim();
  const auto dir =
      std::filesystem::temp_directory_path() / ("sb_decomp_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto r = run_servebench(
      "prof --base-url " + sim->url() +
      " --api openai-chat --model m --concurrency 8 -n 24 "
      "--input-length 32 --output-length 12 --server-metrics " +
      sim->url() + "/metrics --telemetry-interval 200 --no-progress -q -o " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto trace = trace_by_id(*sim);
  ASSERT_EQ(trace.size(), 24u);
  double queue = 0, prefill = 0, decode = 0;
  for (const auto& [id, t] : trace) {
    queue += ms_between(t.arrival_ns, t.admission_ns) / 24;
    prefill += ms_between(t.admission_ns, t.token_due_ns.front()) / 24;
    decode += ms_between(t.token_due_ns.front(), t.token_due_ns.back()) / 24;
  }
  const auto s = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
  const auto& h = s.at("decomposition").at("server_histograms");
  ASSERT_TRUE(h.is_object()) << s.at("decomposition").dump(2);
  EXPECT_EQ(h.at("source"), "vllm_metrics");
  EXPECT_EQ(h.at("queue").at("requests"), 24);
  EXPECT_NEAR(h.at("queue").at("mean_ms").get<double>(), queue, 1.0);
  EXPECT_NEAR(h.at("prefill").at("mean_ms").get<double>(), prefill, 1.0);
  EXPECT_NEAR(h.at("decode").at("mean_ms").get<double>(), decode, 1.0);
  EXPECT_GT(queue, 1.0);
  // Every request's client phases reached requests.jsonl and the summary.
  EXPECT_EQ(s.at("decomposition").at("client").at("ttfb_ms").at("count"), 24);
  std::filesystem::remove_all(dir);
}

// The client-health verdict: a worker loop blocked 20 ms at each 10-ms tick is a slow
// client; the same run without the stall is not (timing label: runs alone).
metrics::ClientHealth health_of(Nanos stall) {
  auto sim = start_sim("instant");
  auto cfg = config_for(*sim, Api::openai_chat);
  cfg.load.concurrency = 2;
  cfg.load.num_requests = 40;
  cfg.loop_stall_for_tests = stall;
  const auto result = engine::run_benchmark(cfg, {});
  const auto info = engine::run_info(cfg, result, "instant", {});
  return metrics::summarize_run(result.records, info).client_health;
}

TEST(ClientHealthSim, ABlockedEventLoopIsClientLimited) {
  const metrics::ClientHealth slow = health_of(std::chrono::milliseconds(20));
  EXPECT_TRUE(slow.client_limited);
  ASSERT_FALSE(slow.reasons.empty());
  EXPECT_NE(slow.reasons[0].find("event loops ran late"), std::string::npos) << slow.reasons[0];
  EXPECT_GT(slow.loop.max_lag_ms, 10.0);
}

TEST(ClientHealthSim, AnIdleClientIsNot) {
  const metrics::ClientHealth ok = health_of(Nanos{0});
  EXPECT_GT(ok.loop.ticks, 0);
  EXPECT_FALSE(ok.client_limited) << (ok.reasons.empty() ? "" : ok.reasons[0]);
}

}  // namespace
}  // namespace sb::testing
