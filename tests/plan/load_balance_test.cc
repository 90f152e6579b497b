// Load balancing over several simulator instances: requests counted in each one's trace.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "net/url.h"
#include "sim/server.h"

namespace sb {
namespace {

std::unique_ptr<sim::Server> start_sim(double time_scale) {
  sim::SimConfig c = sim::preset_config("instant");
  c.server.host = "127.0.0.1";
  c.server.port = 0;
  c.server.time_scale = time_scale;
  auto s = std::make_unique<sim::Server>(c);
  s->start();
  return s;
}

engine::EngineConfig config_for(const std::vector<std::unique_ptr<sim::Server>>& sims,
                                engine::LoadBalancer lb) {
  engine::EngineConfig c;
  c.client.url = net::parse_url(sims[0]->url());
  for (size_t i = 1; i < sims.size(); ++i)
    c.extra_endpoints.push_back(net::parse_url(sims[i]->url()));
  c.load_balancer = lb;
  c.adapter.api = protocol::Api::tgi;
  c.workers = 2;
  c.workload.input_tokens = 16;
  c.workload.output_tokens = 12;
  c.timeouts.total = std::chrono::seconds(20);
  return c;
}

// Requests each simulator served.
std::vector<size_t> served(const std::vector<std::unique_ptr<sim::Server>>& sims) {
  std::vector<size_t> n;
  for (const auto& s : sims) {
    EXPECT_TRUE(s->wait_idle(std::chrono::seconds(5)));
    n.push_back(s->trace().size());
  }
  return n;
}

size_t ok_count(const engine::RunResult& r) {
  size_t ok = 0;
  for (const auto& rec : r.records) ok += rec.ok();
  return ok;
}

TEST(LoadBalance, RoundRobinSendsEveryThirdRequestToEachEndpoint) {
  std::vector<std::unique_ptr<sim::Server>> sims;
  for (int i = 0; i < 3; ++i) sims.push_back(start_sim(1.0));
  auto c = config_for(sims, engine::LoadBalancer::rr);
  c.load.concurrency = 4;
  c.load.num_requests = 30;
  c.load.warmup = 3;
  const auto r = engine::run_benchmark(c, {});
  EXPECT_EQ(ok_count(r), 33u);
  EXPECT_EQ(served(sims), (std::vector<size_t>{11, 11, 11}));
}

TEST(LoadBalance, LeastInflightSendsLessToTheSlowEndpoint) {
  // Endpoint 0 is 15x slower: round robin still gives it a third, least-inflight much less.
  for (const auto lb : {engine::LoadBalancer::rr, engine::LoadBalancer::least_inflight}) {
    std::vector<std::unique_ptr<sim::Server>> sims;
    sims.push_back(start_sim(15.0));
    sims.push_back(start_sim(1.0));
    sims.push_back(start_sim(1.0));
    auto c = config_for(sims, lb);
    c.load.concurrency = 6;
    c.load.num_requests = 90;
    const auto r = engine::run_benchmark(c, {});
    EXPECT_EQ(ok_count(r), 90u);
    const auto n = served(sims);
    SCOPED_TRACE(::testing::Message() << "policy " << engine::to_string(lb) << ": " << n[0] << " "
                                      << n[1] << " " << n[2]);
    EXPECT_EQ(n[0] + n[1] + n[2], 90u);
    if (lb == engine::LoadBalancer::rr) {
      EXPECT_EQ(n, (std::vector<size_t>{30, 30, 30}));
    } else {
      EXPECT_LT(n[0] * 3, n[1]);
      EXPECT_LT(n[0] * 3, n[2]);
    }
  }
}

TEST(LoadBalance, RandomReachesEveryEndpoint) {
  std::vector<std::unique_ptr<sim::Server>> sims;
  for (int i = 0; i < 3; ++i) sims.push_back(start_sim(1.0));
  auto c = config_for(sims, engine::LoadBalancer::random);
  c.load.concurrency = 3;
  c.load.num_requests = 60;
  const auto r = engine::run_benchmark(c, {});
  EXPECT_EQ(ok_count(r), 60u);
  const auto n = served(sims);
  EXPECT_EQ(n[0] + n[1] + n[2], 60u);
  for (size_t k : n) EXPECT_GE(k, 8u);
}

TEST(LoadBalance, PickerPolicies) {
  engine::EndpointPicker rr(3, engine::LoadBalancer::rr, 0);
  EXPECT_EQ(rr.acquire(), 0u);
  EXPECT_EQ(rr.acquire(), 1u);
  EXPECT_EQ(rr.acquire(), 2u);
  EXPECT_EQ(rr.acquire(), 0u);
  engine::EndpointPicker li(3, engine::LoadBalancer::least_inflight, 0);
  const size_t a = li.acquire(), b = li.acquire(), c = li.acquire();
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
  li.release(b);
  EXPECT_EQ(li.acquire(), b);  // the only endpoint with nothing in flight
  EXPECT_EQ(li.in_flight(b), 1);
  engine::EndpointPicker one(1, engine::LoadBalancer::random, 7);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(one.acquire(), 0u);
  EXPECT_EQ(engine::load_balancer_from_string("least-inflight"),
            engine::LoadBalancer::least_inflight);
  EXPECT_FALSE(engine::load_balancer_from_string("fastest"));
}

}  // namespace
}  // namespace sb
