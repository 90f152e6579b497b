#pragma once
// Summary statistics of a set of exact samples (docs/metrics.md: per-request metrics keep every
// sample).
//
// Conventions, chosen to match numpy (and so vLLM's benchmark_serving.py, which calls
// np.mean / np.std / np.percentile on the raw samples):
//   - percentile p of n sorted samples x[0..n-1]: rank r = p/100 * (n-1); with
//     i = floor(r), f = r - i: x[i] + f * (x[i+1] - x[i])  (numpy's default "linear" method:
//     linear interpolation between the closest ranks). p = 0 is min, p = 100 is max.
//   - stddev is the population standard deviation (numpy's default ddof=0):
//     sqrt(sum((x - mean)^2) / n). One sample has stddev 0.
//   - an empty set has count 0; every other field is then undefined (written as JSON null)
//     and holds 0 here.
#include <cstdint>
#include <span>
#include <vector>

namespace sb::metrics {

struct Distribution {
  int64_t count = 0;
  double mean = 0;
  double stddev = 0;
  double min = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;  // p99.9
  double max = 0;

  bool empty() const { return count == 0; }
};

// Statistics of `samples` (taken by value: it is sorted in place). Non-finite samples are the
// caller's bug; they are not filtered.
Distribution distribution_of(std::vector<double> samples);
// The same of float samples (inter-token gaps: half the memory); equal, field for field, to
// distribution_of of the samples widened to double.
Distribution distribution_of_floats(std::vector<float> samples);

// Percentile p in [0, 100] of ascending-sorted, non-empty `sorted`, by numpy's linear method.
double percentile_sorted(std::span<const double> sorted, double p);

}  // namespace sb::metrics
