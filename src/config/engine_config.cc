#include "config/engine_config.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/header_check.h"

namespace sb::engine {

void validate(const EngineConfig& c) {
  const auto& l = c.load;
  if (l.mode == LoadMode::closed) {
    if (l.concurrency < 1)
      throw usage_error(fmt::format("--concurrency {}: must be at least 1", l.concurrency));
  } else {
    if (!(l.request_rate > 0) || !std::isfinite(l.request_rate))
      throw usage_error(fmt::format("--request-rate {}: must be a positive number of requests/s",
                                    l.request_rate));
    if (l.max_concurrency < 0)
      throw usage_error("--max-concurrency: must be 0 (no cap) or a positive count");
    load::validate(l.rate_pattern);
  }
  // The open loop's shape, checked in a closed loop too (a plan's closed stages carry it).
  if (!(l.burstiness > 0))
    throw usage_error(fmt::format("--burstiness {}: must be > 0 (1 = Poisson)", l.burstiness));
  if (l.mode == LoadMode::closed && !l.rate_pattern.steady())
    throw usage_error(fmt::format(
        "--rate-pattern {}: shapes an open loop's rate; give --request-rate R (the base rate) "
        "instead of --concurrency",
        load::to_string(l.rate_pattern)));
  if (l.num_requests < 0) throw usage_error("--num-requests: must not be negative");
  if (l.num_requests == 0 && l.duration <= Nanos::zero())
    throw usage_error("give --num-requests N or --duration D (or both) to bound the run");
  if (l.warmup < 0) throw usage_error("--warmup: must not be negative");
  if (l.sessions.enabled()) {
    if (l.mode != LoadMode::closed || l.concurrency != l.sessions.concurrency)
      throw usage_error(
          "--session-concurrency: sessions are a closed loop of their own (concurrency = "
          "--session-concurrency)");
    if (!l.sessions.header.empty())
      if (const std::string why = header_name_problem(l.sessions.header); !why.empty())
        throw usage_error(fmt::format("--session-header: the header name {}", why));
  }
  const auto& t = c.timeouts;
  for (auto [name, v] : {std::pair{"--connect-timeout", t.connect},
                         std::pair{"--first-token-timeout", t.first_token},
                         std::pair{"--idle-timeout", t.idle}, std::pair{"--timeout", t.total}})
    if (v <= Nanos::zero()) throw usage_error(fmt::format("{}: must be positive", name));
  if (t.abandon_after < Nanos::zero())
    throw usage_error("--abandon-after: must be a positive duration (or absent: never)");
  if (c.workers < 0) throw usage_error("--workers: must be 0 (one per core) or positive");
  if (c.max_event_bytes < 1024) throw usage_error("--max-event-bytes: must be at least 1024");
  if (c.client.max_response_bytes < 1024)
    throw usage_error("--max-response-bytes: must be at least 1024");
  // Every way in (flags, providers.yaml, the environment) checked its own values; this is the
  // last line before they go verbatim into request heads. Named, never echoed.
  for (const auto& [name, value] : c.headers) {
    if (const std::string why = header_name_problem(name); !why.empty())
      throw usage_error(fmt::format("header name: it {}", why));
    if (const std::string why = header_value_problem(value); !why.empty())
      throw usage_error(fmt::format("header {}: its value {}", name, why));
  }
  if (const std::string why = header_value_problem(c.api_key); !why.empty())
    throw usage_error(fmt::format("the API key {}", why));
  if (c.endpoint.find_first_of(" \r\n") != std::string::npos ||
      !header_value_problem(c.endpoint).empty())
    throw usage_error("--endpoint: spaces and control characters are not allowed in the path");
  if (c.adapter.api == protocol::Api::generic && c.adapter.generic_template.empty())
    throw usage_error("--api generic needs --request-template FILE");
}

}  // namespace sb::engine
