// The simulator's HTTP layer under its limits (sim/server_limits.h), over raw sockets on
// 127.0.0.1: read and idle timeouts, the connection cap, the fault-header policy and the
// bound on injected delays. Every wait is bounded by a generous receive timeout; nothing
// asserts how fast anything is.
#include <chrono>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "../sim/http_client.h"
#include "sim/config.h"
#include "sim/server.h"
#include "sim/server_limits.h"
#include "telemetry/prom_text.h"

namespace sb::sim {
namespace {

using testing::Conn;
using testing::Response;
using namespace std::chrono_literals;

constexpr const char* kGenerate = R"({"inputs":"hello","parameters":{"max_new_tokens":2}})";
constexpr const char* kCompletion = R"({"model":"m","prompt":"hello","max_tokens":2})";

class SimLimits : public ::testing::Test {
 protected:
  void start(const SimServerLimits& limits) {
    SimConfig c = preset_config("instant");
    c.limits = limits;
    server_ = std::make_unique<Server>(c);
    port_ = server_->start();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    if (server_) server_->stop();
  }
  std::string metrics() {
    Conn c(port_, 10000);
    c.send("GET", "/metrics");
    return c.read().body;
  }
  Response post(const std::string& path, const std::string& body, const std::string& headers) {
    Conn c(port_, 10000);
    c.send("POST", path, body, headers);
    return c.read();
  }
  std::unique_ptr<Server> server_;
  uint16_t port_ = 0;
};

TEST_F(SimLimits, HalfAHeaderGets408AndIsClosedAfterTheReadTimeout) {
  SimServerLimits l;
  l.read_timeout_s = 0.3;
  start(l);
  Conn c(port_, 10000);
  c.send_raw("POST /generate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-le");
  const Response r = c.read();
  EXPECT_EQ(r.status, 408);
  EXPECT_TRUE(c.peer_closed());
  EXPECT_NE(metrics().find("servebench_sim_connections_timed_out_total{reason=\"read\"} 1"),
            std::string::npos)
      << metrics();
}

TEST_F(SimLimits, ABodyThatStopsArrivingGets408) {
  SimServerLimits l;
  l.read_timeout_s = 0.3;
  start(l);
  Conn c(port_, 10000);
  c.send_raw(
      "POST /generate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
      "content-length: 100\r\n\r\n{\"inputs\":");
  EXPECT_EQ(c.read().status, 408);
  EXPECT_TRUE(c.peer_closed());
}

TEST_F(SimLimits, AnIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout) {
  SimServerLimits l;
  l.idle_timeout_s = 0.3;
  start(l);
  Conn c(port_, 10000);
  c.send("GET", "/health");
  EXPECT_EQ(c.read().status, 200);  // kept alive, then idle
  EXPECT_TRUE(c.peer_closed());
  Conn silent(port_, 10000);  // never sends a byte
  EXPECT_TRUE(silent.peer_closed());
  EXPECT_NE(metrics().find("servebench_sim_connections_timed_out_total{reason=\"idle\"} 2"),
            std::string::npos)
      << metrics();
}

TEST_F(SimLimits, ZeroIdleTimeoutKeepsAConnectionOpen) {
  SimServerLimits l;
  l.idle_timeout_s = 0;
  start(l);
  Conn c(port_, 1000);
  c.send("GET", "/health");
  EXPECT_EQ(c.read().status, 200);
  EXPECT_FALSE(c.peer_closed());  // the receive timeout passed, the server kept it
  c.send("GET", "/health");
  EXPECT_EQ(c.read().status, 200);
}

TEST_F(SimLimits, BeyondTheConnectionCapA503AndACount) {
  SimServerLimits l;
  l.max_connections = 2;
  start(l);
  auto a = std::make_unique<Conn>(port_, 10000);
  Conn b(port_, 10000);
  a->send("GET", "/health");  // both served: the cap is on open connections
  EXPECT_EQ(a->read().status, 200);
  b.send("GET", "/health");
  EXPECT_EQ(b.read().status, 200);
  Conn third(port_, 10000);
  const Response r = third.read();  // answered at once, before any request
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.headers.count("retry-after"), 1u);
  EXPECT_TRUE(third.peer_closed());
  a.reset();  // frees a place (the server sees the close)
  std::string m;
  for (int i = 0; i < 100; ++i) {
    Conn c(port_, 10000);
    c.send("GET", "/metrics");
    const Response mr = c.read();
    if (mr.status == 200) {
      m = mr.body;
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  // 1, and one more for each /metrics try that came before the server saw `a` close.
  const std::string sample = "\nservebench_sim_connections_rejected_total ";
  const size_t at = m.find(sample);
  ASSERT_NE(at, std::string::npos) << m;
  EXPECT_GE(std::stoi(m.substr(at + sample.size())), 1) << m;
  b.send("GET", "/health");  // the kept connection still serves
  EXPECT_EQ(b.read().status, 200);
}

TEST_F(SimLimits, AFaultHeaderIsIgnoredWhenNotAllowed) {
  SimServerLimits l;
  l.fault_headers = FaultHeaders::deny;
  start(l);
  EXPECT_EQ(post("/generate", kGenerate, "x-sim-fault: status=503\r\n").status, 200);
  EXPECT_EQ(post("/generate", kGenerate, "x-sim-fault: never_respond=1\r\n").status, 200);
  EXPECT_NE(metrics().find("servebench_sim_fault_headers_ignored_total{reason=\"not_allowed\"} 2"),
            std::string::npos)
      << metrics();
  // The HTTP layer's families are part of the simulator's one page: typed, each once, parsed
  // whole with the engine's (a Prometheus scrape rejects a page that repeats a family).
  const std::string text = metrics();
  const PromPage page = telemetry::parse_prom_text(text);
  EXPECT_EQ(page.bad_lines, 0) << text;
  EXPECT_EQ(page.family_of("servebench_sim_fault_headers_ignored_total").second, PromType::counter);
  EXPECT_EQ(page.family_of("servebench_sim_connections_open").second, PromType::gauge);
  const PromSample* not_allowed =
      page.find("servebench_sim_fault_headers_ignored_total", {{"reason", "not_allowed"}});
  ASSERT_NE(not_allowed, nullptr) << text;
  EXPECT_EQ(not_allowed->value, 2.0);
  EXPECT_NE(page.find("servebench_sim_fault_headers_ignored_total", {{"reason", "delay_too_long"}}),
            nullptr)
      << text;
  ASSERT_NE(page.find("vllm:num_requests_running"), nullptr) << text;
  for (const std::string_view family : {"# TYPE servebench_sim_connections_timed_out_total ",
                                        "# TYPE vllm:num_requests_running "}) {
    ASSERT_NE(text.find(family), std::string::npos) << family;
    EXPECT_EQ(text.find(family), text.rfind(family)) << family;
  }
}

TEST_F(SimLimits, AFaultHeaderIsHonouredOnALoopbackBindByDefault) {
  start(SimServerLimits{});
  EXPECT_EQ(post("/generate", kGenerate, "x-sim-fault: status=503\r\n").status, 503);
}

TEST_F(SimLimits, ADelayAboveTheBoundIsRefusedOneWithinIsServed) {
  SimServerLimits l;
  l.max_fault_delay_ms = 1000;
  start(l);
  const Response tgi = post("/generate", kGenerate, "x-sim-fault: stall_ms=999999\r\n");
  EXPECT_EQ(tgi.status, 422);
  EXPECT_NE(tgi.body.find("--max-fault-delay-ms 1000"), std::string::npos) << tgi.body;
  const Response openai =
      post("/v1/completions", kCompletion, "x-sim-fault: slow_first_byte_ms=5000\r\n");
  EXPECT_EQ(openai.status, 400);
  EXPECT_NE(openai.body.find("slow_first_byte_ms=5000"), std::string::npos) << openai.body;
  EXPECT_EQ(post("/generate", kGenerate, "x-sim-fault: stall_ms=10\r\n").status, 200);
}

TEST_F(SimLimits, NeverRespondHoldsItsConnectionOnlyUpToTheBound) {
  SimServerLimits l;
  l.max_fault_delay_ms = 300;
  start(l);
  Conn c(port_, 10000);
  c.send("POST", "/generate", kGenerate, "x-sim-fault: never_respond=1\r\n");
  EXPECT_TRUE(c.peer_closed());  // closed by the server well before the 10 s receive timeout
}

TEST(SimServerLimits, FaultHeadersByBindAddress) {
  SimServerLimits l;
  EXPECT_TRUE(fault_headers_allowed(l, "127.0.0.1"));
  EXPECT_TRUE(fault_headers_allowed(l, "localhost"));
  EXPECT_TRUE(fault_headers_allowed(l, "::1"));
  EXPECT_FALSE(fault_headers_allowed(l, "0.0.0.0"));
  EXPECT_FALSE(fault_headers_allowed(l, "::"));
  EXPECT_FALSE(fault_headers_allowed(l, "10.0.0.5"));
  l.fault_headers = FaultHeaders::allow;
  EXPECT_TRUE(fault_headers_allowed(l, "0.0.0.0"));
  l.fault_headers = FaultHeaders::deny;
  EXPECT_FALSE(fault_headers_allowed(l, "127.0.0.1"));
}

TEST(SimServerLimits, TheAutomaticCapFollowsTheDescriptorLimit) {
  SimServerLimits l;
  EXPECT_EQ(effective_max_connections(l, 1024), 960);
  EXPECT_EQ(effective_max_connections(l, 20), 16);
  EXPECT_EQ(effective_max_connections(l, UINT64_MAX), 1'000'000);
  l.max_connections = 5;
  EXPECT_EQ(effective_max_connections(l, 1024), 5);
}

TEST(SimServerLimits, DelayProblemsAndNeverRespond) {
  EXPECT_FALSE(fault_delay_problem("stall_ms=100,stall_after=2", 100));
  EXPECT_TRUE(fault_delay_problem("stall_ms=101", 100));
  EXPECT_TRUE(fault_delay_problem("status=503, slow_first_byte_ms=7000", 100));
  EXPECT_FALSE(fault_delay_problem("nonsense", 100));  // the handler answers that itself
  EXPECT_TRUE(asks_never_respond("never_respond"));
  EXPECT_TRUE(asks_never_respond("status=500,never_respond=1"));
  EXPECT_FALSE(asks_never_respond("never_respond=0"));
  EXPECT_FALSE(asks_never_respond("stall_ms=5"));
}

TEST(SimServerLimits, ValidateNamesTheFlag) {
  auto message = [](SimServerLimits l) {
    try {
      validate(l);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  SimServerLimits l;
  EXPECT_EQ(message(l), "");
  l.idle_timeout_s = -1;
  EXPECT_NE(message(l).find("--idle-timeout-s"), std::string::npos);
  l = {};
  l.read_timeout_s = 1e9;
  EXPECT_NE(message(l).find("--read-timeout-s"), std::string::npos);
  l = {};
  l.max_connections = -3;
  EXPECT_NE(message(l).find("--max-connections"), std::string::npos);
  l = {};
  l.max_fault_delay_ms = -1;
  EXPECT_NE(message(l).find("--max-fault-delay-ms"), std::string::npos);
}

}  // namespace
}  // namespace sb::sim
