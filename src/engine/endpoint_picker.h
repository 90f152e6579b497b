#pragma once
// Spreads requests over several base URLs of one provider (providers.yaml `endpoints:`).
// One picker is shared by every worker of a run; acquire() and release() are thread-safe
// and lock-free (one relaxed atomic per endpoint).
//   rr:             endpoint k, k+1, ... in turn, over all requests of the run;
//   least_inflight: the endpoint with the fewest requests in flight right now (ties: the
//                   next one after the previous pick, so equal endpoints rotate);
//   random:         uniformly at random, seeded (the run's seed), reproducible per seed.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

namespace sb::engine {

enum class LoadBalancer { rr, least_inflight, random };
std::optional<LoadBalancer> load_balancer_from_string(
    std::string_view s);  // rr|least-inflight|random
std::string_view to_string(LoadBalancer lb);

class EndpointPicker {
 public:
  EndpointPicker(size_t endpoints, LoadBalancer policy, uint64_t seed);
  size_t size() const { return n_; }
  // Picks an endpoint for a request about to be sent and counts it in flight.
  size_t acquire();
  // The request sent to `endpoint` has ended.
  void release(size_t endpoint);
  int64_t in_flight(size_t endpoint) const;

 private:
  size_t n_;
  LoadBalancer policy_;
  std::unique_ptr<std::atomic<int64_t>[]> in_flight_;
  std::atomic<uint64_t> next_{0};
  uint64_t seed_;
};

}  // namespace sb::engine
