#include "engine/endpoint_picker.h"

#include "common/splitmix64.h"

namespace sb::engine {

std::optional<LoadBalancer> load_balancer_from_string(std::string_view s) {
  if (s == "rr" || s == "round-robin") return LoadBalancer::rr;
  if (s == "least-inflight" || s == "least_inflight") return LoadBalancer::least_inflight;
  if (s == "random") return LoadBalancer::random;
  return std::nullopt;
}

std::string_view to_string(LoadBalancer lb) {
  switch (lb) {
    case LoadBalancer::rr:
      return "rr";
    case LoadBalancer::least_inflight:
      return "least-inflight";
    case LoadBalancer::random:
      return "random";
  }
  return "rr";
}

EndpointPicker::EndpointPicker(size_t endpoints, LoadBalancer policy, uint64_t seed)
    : n_(endpoints == 0 ? 1 : endpoints),
      policy_(policy),
      in_flight_(new std::atomic<int64_t>[n_]),
      seed_(seed) {
  for (size_t i = 0; i < n_; ++i) in_flight_[i].store(0);
}

size_t EndpointPicker::acquire() {
  size_t pick = 0;
  if (n_ > 1) {
    const uint64_t k = next_.fetch_add(1, std::memory_order_relaxed);
    switch (policy_) {
      case LoadBalancer::rr:
        pick = k % n_;
        break;
      case LoadBalancer::random:
        pick = splitmix64(seed_ ^ (k * 0x2545f4914f6cdd1dULL)) % n_;
        break;
      case LoadBalancer::least_inflight: {
        int64_t best = INT64_MAX;
        for (size_t j = 0; j < n_; ++j) {
          const size_t i = (k + j) % n_;
          const int64_t v = in_flight_[i].load(std::memory_order_relaxed);
          if (v < best) {
            best = v;
            pick = i;
          }
        }
        break;
      }
    }
  }
  in_flight_[pick].fetch_add(1, std::memory_order_relaxed);
  return pick;
}

void EndpointPicker::release(size_t endpoint) {
  if (endpoint < n_) in_flight_[endpoint].fetch_sub(1, std::memory_order_relaxed);
}

int64_t EndpointPicker::in_flight(size_t endpoint) const {
  return endpoint < n_ ? in_flight_[endpoint].load(std::memory_order_relaxed) : 0;
}

}  // namespace sb::engine
