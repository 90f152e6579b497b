#include "metrics/decomposition.h"

#include <map>

namespace sb::metrics {

Decomposition decompose(const std::vector<RequestRecord>& records) {
  Decomposition d;
  std::vector<double> ttft, e2e, pool, connect, tls, write, ttfb, headers, lag;
  std::vector<double> queue, prefill, decode, inference, total, cached, client;
  std::map<ServerTimingSource, int64_t> sources;
  auto add = [](std::vector<double>& v, double ms) {  // negative: not reported, not happened
    if (ms >= 0) v.push_back(ms);
  };
  for (const RequestRecord& r : records) {
    if (r.warmup || !r.ok()) continue;
    ++d.requests;
    if (auto t = r.ttft_ms()) ttft.push_back(*t);
    if (auto t = r.e2e_ms()) e2e.push_back(*t);
    const auto& c = r.client;
    if (c.reused) ++d.reused;
    add(pool, c.pool_wait_ms);
    add(connect, c.connect_ms);
    add(tls, c.tls_ms);
    add(write, c.write_ms);
    add(ttfb, c.ttfb_ms);
    add(headers, c.headers_ms);
    add(lag, c.read_lag_max_ms);
    const ServerTimes& s = r.server;
    if (!s.any()) continue;
    ++d.server_reported;
    ++sources[s.source];
    add(queue, s.queue_ms);
    add(prefill, s.prefill_ms);
    add(decode, s.decode_ms);
    add(inference, s.compute_ms());
    add(total, s.total_ms);
    if (s.cached_tokens >= 0) cached.push_back(static_cast<double>(s.cached_tokens));
    if (auto cn = r.client_network_ms()) client.push_back(*cn);
  }
  d.ttft_ms = distribution_of(std::move(ttft));
  d.e2e_ms = distribution_of(std::move(e2e));
  d.pool_wait_ms = distribution_of(std::move(pool));
  d.connect_ms = distribution_of(std::move(connect));
  d.tls_ms = distribution_of(std::move(tls));
  d.write_ms = distribution_of(std::move(write));
  d.ttfb_ms = distribution_of(std::move(ttfb));
  d.headers_ms = distribution_of(std::move(headers));
  d.read_lag_max_ms = distribution_of(std::move(lag));
  d.server_queue_ms = distribution_of(std::move(queue));
  d.server_prefill_ms = distribution_of(std::move(prefill));
  d.server_decode_ms = distribution_of(std::move(decode));
  d.server_inference_ms = distribution_of(std::move(inference));
  d.server_total_ms = distribution_of(std::move(total));
  d.server_cached_tokens = distribution_of(std::move(cached));
  d.client_network_ms = distribution_of(std::move(client));
  int64_t best = 0;
  for (const auto& [source, n] : sources)
    if (n > best) {
      best = n;
      d.server_source = std::string(to_string(source));
    }
  return d;
}

}  // namespace sb::metrics
