#include "metrics/decomposition.h"

namespace sb::metrics {

namespace {

template <typename T>
void add_if_happened(Column<T>& c, T ms) {  // negative: not reported, not happened
  if (ms >= 0) c.push(ms);
}

}  // namespace

void DecompositionAccumulator::add(const RequestRecord& r) {
  if (r.warmup || !r.ok()) return;
  ++d_.requests;
  const auto& c = r.client;
  if (c.reused) ++d_.reused;
  add_if_happened(pool_, c.pool_wait_ms);
  add_if_happened(connect_, c.connect_ms);
  add_if_happened(tls_, c.tls_ms);
  add_if_happened(write_, c.write_ms);
  add_if_happened(ttfb_, c.ttfb_ms);
  add_if_happened(headers_, c.headers_ms);
  add_if_happened(lag_, c.read_lag_max_ms);
  const ServerTimes& s = r.server;
  if (!s.any()) return;
  ++d_.server_reported;
  ++sources_[s.source];
  add_if_happened(queue_, s.queue_ms);
  add_if_happened(prefill_, s.prefill_ms);
  add_if_happened(decode_, s.decode_ms);
  add_if_happened(inference_, s.compute_ms());
  add_if_happened(total_, s.total_ms);
  if (s.cached_tokens >= 0) cached_.push(static_cast<double>(s.cached_tokens));
  if (auto cn = r.client_network_ms()) client_.push(*cn);
}

Decomposition DecompositionAccumulator::finish(Distribution ttft_ms, Distribution e2e_ms) {
  Decomposition d = std::move(d_);
  d.ttft_ms = std::move(ttft_ms);
  d.e2e_ms = std::move(e2e_ms);
  d.pool_wait_ms = distribution_of_floats(pool_.take());
  d.connect_ms = distribution_of_floats(connect_.take());
  d.tls_ms = distribution_of_floats(tls_.take());
  d.write_ms = distribution_of_floats(write_.take());
  d.ttfb_ms = distribution_of_floats(ttfb_.take());
  d.headers_ms = distribution_of_floats(headers_.take());
  d.read_lag_max_ms = distribution_of_floats(lag_.take());
  d.server_queue_ms = distribution_of(queue_.take());
  d.server_prefill_ms = distribution_of(prefill_.take());
  d.server_decode_ms = distribution_of(decode_.take());
  d.server_inference_ms = distribution_of(inference_.take());
  d.server_total_ms = distribution_of(total_.take());
  d.server_cached_tokens = distribution_of(cached_.take());
  d.client_network_ms = distribution_of(client_.take());
  int64_t best = 0;
  for (const auto& [source, n] : sources_)
    if (n > best) {
      best = n;
      d.server_source = std::string(to_string(source));
    }
  return d;
}

Decomposition decompose(const std::vector<RequestRecord>& records) {
  DecompositionAccumulator a;
  std::vector<double> ttft, e2e;
  for (const RequestRecord& r : records) {
    a.add(r);
    if (r.warmup || !r.ok()) continue;
    if (auto t = r.ttft_ms()) ttft.push_back(*t);
    if (auto t = r.e2e_ms()) e2e.push_back(*t);
  }
  return a.finish(distribution_of(std::move(ttft)), distribution_of(std::move(e2e)));
}

}  // namespace sb::metrics
