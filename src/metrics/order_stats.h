#pragma once
// The pieces of distribution_of (distribution.h) shared with the samples that do not fit in
// memory (float_samples.h): which order statistics a Distribution reads, and the Distribution
// made from them. One definition of the percentiles, whatever holds the samples.
#include <cstddef>
#include <span>
#include <vector>

#include "metrics/distribution.h"

namespace sb::metrics {

// The 0-based ranks, ascending and distinct, of the sorted values a Distribution of n > 0
// samples reads: min, max, and the two ranks each percentile interpolates between.
std::vector<size_t> order_ranks(size_t n);

// The Distribution of n > 0 samples from their mean and (population) stddev and the sorted
// values at order_ranks(n), in that order.
Distribution distribution_from(size_t n, double mean, double stddev,
                               std::span<const double> values_at_ranks);

}  // namespace sb::metrics
