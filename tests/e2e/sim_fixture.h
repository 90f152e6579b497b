#pragma once
// Test helpers: an in-process simulator on 127.0.0.1:0 and engine configs aimed at it.
#include <map>
#include <memory>
#include <string>

#include "engine/engine.h"
#include "net/url.h"
#include "sim/server.h"

namespace sb::testing {

inline std::unique_ptr<sim::Server> start_sim(const std::string& preset = "instant",
                                              double time_scale = 1.0) {
  sim::SimConfig c = sim::preset_config(preset);
  c.server.host = "127.0.0.1";
  c.server.port = 0;
  c.server.time_scale = time_scale;
  auto s = std::make_unique<sim::Server>(c);
  s->start();
  return s;
}

inline engine::EngineConfig config_for(const sim::Server& s, protocol::Api api,
                                       bool stream = true) {
  engine::EngineConfig c;
  c.client.url = net::parse_url(s.url());
  c.adapter.api = api;
  c.adapter.stream = stream;
  c.adapter.model = "m";
  c.workers = 2;
  c.load.concurrency = 4;
  c.load.num_requests = 20;
  c.workload.input_tokens = 32;
  c.workload.output_tokens = 12;
  c.timeouts.first_token = std::chrono::seconds(10);
  c.timeouts.total = std::chrono::seconds(20);
  c.grace_period = std::chrono::seconds(2);
  return c;
}

// The server's trace records by x-request-id ("servebench-<id>").
inline std::map<std::string, sim::TraceRecord> trace_by_id(const sim::Server& s) {
  EXPECT_TRUE(s.wait_idle(std::chrono::seconds(5))) << "the simulator still has requests in flight";
  std::map<std::string, sim::TraceRecord> m;
  for (auto& t : s.trace()) m[t.request_id] = t;
  return m;
}

inline std::string request_id(uint64_t id) {
  return "servebench-" + std::to_string(id);
}

}  // namespace sb::testing
