// Fault injection between the client engine and the in-process simulator: a
// loopback proxy (fault_proxy.h) drops, delays, truncates, resets, drips and
// cuts the server's responses. For each damage: the expected error class on
// every request, no hang past the configured timeouts, and no lost record (one
// record per planned request, each handed to the results sink once, each with
// its end time).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "../e2e/sim_fixture.h"
#include "../support/timing_slack.h"
#include "fault_proxy.h"

namespace sb::testing {
namespace {

using namespace std::chrono_literals;
using Mode = ProxyOptions::Mode;
using protocol::Api;

// Slack for "no hang" bounds (tests/support/timing_slack.h).
double slack_factor() {
  return testing::sanitizer_slack();
}

struct Outcome {
  engine::RunResult result;
  double wall_s = 0;
  std::set<uint64_t> sunk_ids;  // ids handed to the results sink
  int sunk = 0;
};

Outcome run_through(const sim::Server& sim, const ProxyOptions& options, engine::EngineConfig cfg,
                    int* connections = nullptr) {
  FaultProxy proxy(net::parse_url(sim.url()).port, options);
  cfg.client.url = net::parse_url(proxy.url());
  Outcome out;
  std::mutex mu;
  engine::RunHooks hooks;
  hooks.on_record = [&](const metrics::RequestRecord& r) {
    std::lock_guard lock(mu);
    out.sunk_ids.insert(r.id);
    ++out.sunk;
  };
  const auto start = std::chrono::steady_clock::now();
  out.result = engine::run_benchmark(cfg, hooks);
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (connections) *connections = proxy.connections();
  return out;
}

engine::EngineConfig base_config(const sim::Server& sim, Api api = Api::openai_chat,
                                 bool stream = true) {
  auto cfg = config_for(sim, api, stream);
  cfg.load.num_requests = 6;
  cfg.load.concurrency = 2;
  cfg.workload.output_tokens = 6;
  cfg.timeouts.connect = 2s;
  cfg.timeouts.first_token = 2s;
  cfg.timeouts.idle = 2s;
  cfg.timeouts.total = 5s;
  return cfg;
}

// Every planned request has exactly one record, in the result and in the sink.
void expect_no_lost_record(const Outcome& o, size_t planned) {
  ASSERT_EQ(o.result.records.size(), planned);
  EXPECT_EQ(o.sunk, static_cast<int>(planned));
  EXPECT_EQ(o.sunk_ids.size(), planned);
  for (const auto& r : o.result.records) {
    EXPECT_TRUE(o.sunk_ids.count(r.id)) << r.id;
    EXPECT_NE(r.t_end_ns, metrics::kNoTime) << r.id;
  }
}

void expect_all(const Outcome& o, ErrorClass expected) {
  for (const auto& r : o.result.records)
    EXPECT_EQ(r.error_class, expected)
        << "request " << r.id << ": " << to_string(r.error_class) << ": " << r.error;
}

// A run of `planned` requests, `concurrency` at a time, each bounded by `per_request_s`,
// must end within that plus slack.
void expect_bounded(const Outcome& o, int planned, int concurrency, double per_request_s) {
  const double rounds = (planned + concurrency - 1) / concurrency;
  EXPECT_LT(o.wall_s, (rounds * per_request_s + 2.0) * slack_factor()) << "the run hung";
}

TEST(ProxyFaults, PassThroughChangesNothing) {
  auto sim = start_sim();
  const auto o = run_through(*sim, {}, base_config(*sim));
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::ok);
  for (const auto& r : o.result.records) EXPECT_EQ(r.output_tokens, 6);
}

TEST(ProxyFaults, DropTimesOutAtTheFirstTokenTimeout) {
  auto sim = start_sim();
  auto cfg = base_config(*sim);
  cfg.timeouts.first_token = 300ms;
  const auto o = run_through(*sim, {.mode = Mode::drop}, cfg);
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::timeout_first_token);
  for (const auto& r : o.result.records) {
    EXPECT_EQ(r.status, 0);
    // Not before the timeout, and not long after it.
    EXPECT_GE(r.t_end_ns - r.t_send_ns, 300'000'000);
    EXPECT_LT(r.t_end_ns - r.t_send_ns, static_cast<int64_t>(1e9 * slack_factor()));
  }
  expect_bounded(o, 6, 2, 0.3);
}

TEST(ProxyFaults, DelayShowsInTtftAndNothingFails) {
  auto sim = start_sim();
  const auto o = run_through(*sim, {.mode = Mode::delay, .delay = 40ms}, base_config(*sim));
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::ok);
  for (const auto& r : o.result.records) {
    ASSERT_TRUE(r.ttft_ms());
    EXPECT_GE(*r.ttft_ms(), 40.0);
    EXPECT_EQ(r.output_tokens, 6);
  }
}

TEST(ProxyFaults, DelayPastTheFirstTokenTimeoutTimesOut) {
  auto sim = start_sim();
  auto cfg = base_config(*sim);
  cfg.timeouts.first_token = 150ms;
  const auto o = run_through(*sim, {.mode = Mode::delay, .delay = 600ms}, cfg);
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::timeout_first_token);
  expect_bounded(o, 6, 2, 0.15);
}

TEST(ProxyFaults, TruncatedHeaderIsAConnectionReset) {
  auto sim = start_sim();
  const auto o = run_through(*sim, {.mode = Mode::truncate, .after_bytes = 20}, base_config(*sim));
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::connection_reset);
  for (const auto& r : o.result.records) EXPECT_EQ(r.status, 0);
}

struct CutCase {
  const char* name;
  ProxyOptions options;
  Api api;
  bool stream;
  ErrorClass expected;
};

class CutResponses : public ::testing::TestWithParam<CutCase> {};

TEST_P(CutResponses, HaveTheirErrorClassAndKeepEveryRecord) {
  auto sim = start_sim();
  const auto& c = GetParam();
  auto cfg = base_config(*sim, c.api, c.stream);
  cfg.workload.output_tokens = 40;  // a body long enough to cut in the middle
  const auto o = run_through(*sim, c.options, cfg);
  expect_no_lost_record(o, 6);
  expect_all(o, c.expected);
  for (const auto& r : o.result.records) EXPECT_EQ(r.status, 200) << r.id;
  expect_bounded(o, 6, 2, 0.5);
}

INSTANTIATE_TEST_SUITE_P(
    Proxy, CutResponses,
    ::testing::Values(CutCase{"truncate_stream",
                              {.mode = Mode::truncate, .after_bytes = 600, .after_header = true},
                              Api::openai_chat,
                              true,
                              ErrorClass::incomplete_stream},
                      CutCase{"truncate_tgi_stream",
                              {.mode = Mode::truncate, .after_bytes = 600, .after_header = true},
                              Api::tgi,
                              true,
                              ErrorClass::incomplete_stream},
                      CutCase{"truncate_whole_body",
                              {.mode = Mode::truncate, .after_bytes = 20, .after_header = true},
                              Api::openai,
                              false,
                              ErrorClass::incomplete_stream},
                      CutCase{"reset_stream",
                              {.mode = Mode::reset, .after_bytes = 600, .after_header = true},
                              Api::openai_chat,
                              true,
                              ErrorClass::connection_reset},
                      CutCase{"reset_whole_body",
                              {.mode = Mode::reset, .after_bytes = 20, .after_header = true},
                              Api::tgi,
                              false,
                              ErrorClass::connection_reset},
                      CutCase{"close_after_header_stream",
                              {.mode = Mode::close_after_header},
                              Api::openai_chat,
                              true,
                              ErrorClass::incomplete_stream},
                      CutCase{"close_after_header_whole",
                              {.mode = Mode::close_after_header},
                              Api::openai,
                              false,
                              ErrorClass::incomplete_stream}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ProxyFaults, SlowDripOfSingleBytesParsesExactly) {
  // Every byte of header, chunk framing and SSE arrives on its own: the
  // response must parse to the same tokens as in one piece.
  auto sim = start_sim();
  for (Api api : {Api::openai_chat, Api::tgi}) {
    auto cfg = base_config(*sim, api);
    cfg.load.num_requests = 4;
    cfg.workload.output_tokens = 3;
    const auto o = run_through(*sim, {.mode = Mode::drip, .gap = 50us}, cfg);
    expect_no_lost_record(o, 4);
    expect_all(o, ErrorClass::ok);
    for (const auto& r : o.result.records) {
      EXPECT_EQ(r.output_tokens, 3) << protocol::to_string(api);
      EXPECT_EQ(r.events, 3u) << protocol::to_string(api);
    }
  }
}

TEST(ProxyFaults, SlowDripIsCutAtTheTotalTimeout) {
  // A server that never stops sending (one byte every 5 ms) is cut at --timeout.
  auto sim = start_sim();
  auto cfg = base_config(*sim);
  cfg.workload.output_tokens = 200;
  cfg.timeouts.first_token = 10s;
  cfg.timeouts.idle = 10s;
  cfg.timeouts.total = 400ms;
  const auto o = run_through(*sim, {.mode = Mode::drip, .gap = 5ms}, cfg);
  expect_no_lost_record(o, 6);
  expect_all(o, ErrorClass::timeout_total);
  for (const auto& r : o.result.records)
    EXPECT_LT(r.t_end_ns - r.t_send_ns, static_cast<int64_t>(1.4e9 * slack_factor()));
  expect_bounded(o, 6, 2, 0.4);
}

TEST(ProxyFaults, ResponseOverTheSizeLimitIsCutAndMemoryStaysBounded) {
  auto sim = start_sim();
  for (bool stream : {true, false}) {
    auto cfg = base_config(*sim, Api::openai, stream);
    cfg.workload.output_tokens = 400;
    cfg.client.max_response_bytes = 1024;  // the smallest allowed; a 400-token body is ~1.9 KB
    const auto o = run_through(*sim, {}, cfg);
    expect_no_lost_record(o, 6);
    expect_all(o, ErrorClass::response_too_large);
  }
}

TEST(ProxyFaults, MixedSimulatorFaultsThroughTheProxyLoseNoRecord) {
  // The simulator's own fault dice (--fault-rate) behind a delaying proxy: whatever
  // happens to each request, each has exactly one record with an end time.
  sim::SimConfig sc = sim::preset_config("instant");
  sc.server.host = "127.0.0.1";
  sc.server.port = 0;
  sc.faults = sim::parse_fault_rates("503=0.1,429=0.1,reset=0.1,disconnect=0.1,malformed=0.1");
  sim::Server sim(sc);
  sim.start();
  auto cfg = base_config(sim);
  cfg.load.num_requests = 60;
  cfg.load.concurrency = 8;
  const auto o = run_through(sim, {.mode = Mode::delay, .delay = 2ms}, cfg);
  expect_no_lost_record(o, 60);
  int failed = 0;
  for (const auto& r : o.result.records) failed += !r.ok();
  EXPECT_GT(failed, 0);
  EXPECT_LT(failed, 60);
}

}  // namespace
}  // namespace sb::testing
