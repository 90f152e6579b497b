#pragma once
// Float samples (inter-token gaps: one per streamed token) with exact statistics however many
// there are. The first `memory_values` stay in memory; the rest are appended to an unlinked
// temporary file under $TMPDIR (else /tmp), so a 10 M-request run of 128 tokens each (1.3 G
// gaps, 5 GB as floats) holds 128 MiB of them. Should the file fail (no room, no folder), the
// values stay in memory: nothing is lost, memory grows.
//
// distribution_of_samples over several FloatSamples equals distribution_of_floats of their
// concatenation (in the order given, each in push order), field for field: while none has
// spilled it is that; otherwise it takes two passes over the values, the sums in that order and
// the order statistics by a radix selection on the floats' order-preserving bit patterns (the
// high 16 bits counted in the first pass, the low 16 bits of the buckets holding the wanted
// ranks in the second).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "metrics/column.h"
#include "metrics/distribution.h"

namespace sb::metrics {

class FloatSamples {
 public:
  static constexpr size_t kMemoryValues = size_t{1} << 25;  // 128 MiB of floats

  explicit FloatSamples(size_t memory_values = kMemoryValues);
  ~FloatSamples();
  FloatSamples(FloatSamples&& o) noexcept;
  FloatSamples& operator=(FloatSamples&&) = delete;
  FloatSamples(const FloatSamples&) = delete;
  FloatSamples& operator=(const FloatSamples&) = delete;

  void push(float v) {
    if (memory_.size() < memory_values_ && in_file_ == 0 && !failed_)
      memory_.push(v);
    else
      spill(v);
  }
  size_t size() const { return memory_.size() + in_file_ + pending_.size() + overflow_.size(); }
  bool spilled() const { return in_file_ > 0; }

  // Calls f(block) over every value in push order, in blocks (the file read 1 MiB at a time).
  // Throws sb::Error should the file not read back.
  void for_each_block(const std::function<void(std::span<const float>)>& f) const;

 private:
  void spill(float v);
  void flush();  // pending_ to the file; on failure, into overflow_

  size_t memory_values_;
  Column<float> memory_;
  int fd_ = -1;
  size_t in_file_ = 0;          // values written to the file
  std::vector<float> pending_;  // values not yet written
  bool failed_ = false;         // the file failed: what comes after stays in overflow_
  Column<float> overflow_;
};

Distribution distribution_of_samples(std::span<const FloatSamples* const> parts);

}  // namespace sb::metrics
