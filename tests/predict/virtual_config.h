#pragma once
// The engine config the predict tests run in virtual time: a TGI closed loop with fixed lengths
// (the URL is never dialled).
#include <cstdint>

#include "config/engine_config.h"
#include "net/url.h"

namespace sb::testing {

inline engine::EngineConfig tgi_closed_loop(int64_t input_tokens, int64_t output_tokens,
                                            int concurrency, int64_t requests) {
  engine::EngineConfig c;
  c.client.url = net::parse_url("http://127.0.0.1:9");
  c.adapter.api = protocol::Api::tgi;
  c.workload.input_tokens = input_tokens;
  c.workload.output_tokens = output_tokens;
  c.adapter.ignore_eos = true;
  c.load.concurrency = concurrency;
  c.load.num_requests = requests;
  return c;
}

}  // namespace sb::testing
