#pragma once
// A log-linear (HdrHistogram-style) histogram for high-volume values such as ITL gaps.
//
// Contract:
//   - Values are non-negative integers in the caller's unit; servebench records nanoseconds.
//   - Layout: values 0..2047 each have their own bucket (exact); above that, each power-of-two
//     range [2^k, 2^(k+1)) is split into 1024 equal buckets. A bucket [lo, lo + w) therefore
//     has w / lo <= 1/1024, and the value reported for it (its midpoint, clamped to the exact
//     min and max) is within 1/2048 (0.049%) of every value in it: kMaxRelativeError.
//     With nanoseconds that holds from 1 ns to highest_value (default one hour), so
//     the docs/metrics.md bound (<= 0.1% over 1 µs .. 1 hour) holds with margin.
//   - Memory is fixed at construction (about 270 KiB for one hour in ns); record() is O(1) and
//     never allocates. Values above highest_value are recorded as highest_value, and negative
//     values as 0; both are counted in clamped().
//   - count, min, max, mean and stddev (population, as Distribution) are exact; percentiles
//     use the same rank convention as Distribution (numpy "linear": rank p/100*(n-1),
//     interpolated between the two closest ranks), each rank's value taken from its bucket.
//   - merge() adds another histogram with the same highest_value (per-worker histograms after
//     join); serialize()/deserialize() carry one between processes.
//   - Not thread-safe: one histogram per worker, merged after join (docs/architecture.md).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/distribution.h"

namespace sb::metrics {

class LogHistogram {
 public:
  static constexpr int64_t kOneHourNs = 3'600'000'000'000;
  static constexpr double kMaxRelativeError = 1.0 / 2048;

  explicit LogHistogram(int64_t highest_value = kOneHourNs);

  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, uint64_t n);
  // Adds `other`'s samples. Throws sb::Error when the two have different highest_value.
  void merge(const LogHistogram& other);
  void reset();

  int64_t highest_value() const { return highest_; }
  uint64_t count() const { return count_; }
  uint64_t clamped() const { return clamped_; }
  int64_t min() const { return count_ ? min_ : 0; }  // 0 when empty
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const;    // 0 when empty
  double stddev() const;  // population; 0 when empty
  // Percentile p in [0, 100]; 0 when empty.
  double percentile(double p) const;
  // All statistics with every value multiplied by `scale` (1e-6 turns ns into ms).
  Distribution distribution(double scale = 1.0) const;

  // Compact text: "sbhist1 <highest> <count> <clamped> <min> <max> <sum> <sumsq> i:c i:c ...".
  std::string serialize() const;
  // Inverse of serialize(); throws sb::Error on malformed text.
  static LogHistogram deserialize(std::string_view text);

 private:
  static size_t index_of(int64_t value);
  static int64_t bucket_low(size_t index);
  static int64_t bucket_width(size_t index);
  double value_at_rank(uint64_t rank) const;  // 0-based rank < count_

  int64_t highest_;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t clamped_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  long double sum_ = 0;
  long double sum_sq_ = 0;
};

}  // namespace sb::metrics
