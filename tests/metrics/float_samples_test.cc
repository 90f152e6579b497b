// Inter-token gaps beyond memory (metrics/float_samples.h): spilled to a temporary file, their
// statistics by two passes and a radix selection equal the in-memory ones field for field, and
// a file that cannot be made keeps every value in memory.
#include "metrics/float_samples.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace sb::metrics {
namespace {

void expect_equal(const Distribution& a, const Distribution& b, const std::string& what) {
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.mean, b.mean) << what;
  EXPECT_EQ(a.stddev, b.stddev) << what;
  EXPECT_EQ(a.min, b.min) << what;
  EXPECT_EQ(a.p50, b.p50) << what;
  EXPECT_EQ(a.p90, b.p90) << what;
  EXPECT_EQ(a.p95, b.p95) << what;
  EXPECT_EQ(a.p99, b.p99) << what;
  EXPECT_EQ(a.p999, b.p999) << what;
  EXPECT_EQ(a.max, b.max) << what;
}

struct Lcg {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
};

// Values of three kinds: spread over decades, many ties in one narrow band (one high-half
// bucket: the low pass decides), and a few zeros and negatives (the key's sign handling).
float sample(Lcg& g) {
  const uint64_t r = g.next();
  switch (r % 4) {
    case 0:
      return static_cast<float>(r % 100000) / 7.0f;
    case 1:
      return 20.0f + static_cast<float>(r % 64) / 1024.0f;
    case 2:
      return r % 5 == 0 ? 0.0f : -static_cast<float>(r % 300) / 3.0f;
    default:
      return static_cast<float>(r % 1000) * 1e-3f;
  }
}

TEST(FloatSamples, SpilledStatisticsEqualTheInMemoryOnes) {
  for (size_t n : {1u, 2u, 7u, 1000u, 300001u}) {
    Lcg g{n};
    // Three parts, spilling after 0, 100 and 5,000 values.
    std::vector<FloatSamples> parts;
    parts.emplace_back(0);
    parts.emplace_back(100);
    parts.emplace_back(5000);
    std::vector<float> all;
    for (size_t p = 0; p < parts.size(); ++p)
      for (size_t i = 0; i < n; ++i) {
        const float v = sample(g);
        parts[p].push(v);
        all.push_back(v);
      }
    for (size_t p = 0; p < parts.size(); ++p) EXPECT_EQ(parts[p].size(), n);
    EXPECT_EQ(parts[0].spilled(), n >= (size_t{1} << 18));  // a whole block written
    std::vector<const FloatSamples*> ptrs;
    for (const FloatSamples& p : parts) ptrs.push_back(&p);
    expect_equal(distribution_of_samples(ptrs), distribution_of_floats(all),
                 "n = " + std::to_string(n));
    // One part alone: its own values, in push order.
    const FloatSamples* last = &parts[2];
    expect_equal(distribution_of_samples({&last, 1}),
                 distribution_of_floats(std::vector<float>(
                     all.begin() + static_cast<std::ptrdiff_t>(2 * n), all.end())),
                 "last part, n = " + std::to_string(n));
  }
}

TEST(FloatSamples, NoTemporaryFolderKeepsEveryValueInMemory) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent/servebench-no-such-folder", 1);
  FloatSamples s(10);
  std::vector<float> all;
  Lcg g{42};
  for (size_t i = 0; i < 600000; ++i) {
    const float v = sample(g);
    s.push(v);
    all.push_back(v);
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_FALSE(s.spilled());
  EXPECT_EQ(s.size(), all.size());
  const FloatSamples* p = &s;
  expect_equal(distribution_of_samples({&p, 1}), distribution_of_floats(all), "in memory");
}

TEST(FloatSamples, Empty) {
  FloatSamples s(0);
  const FloatSamples* p = &s;
  EXPECT_EQ(distribution_of_samples({&p, 1}).count, 0);
  EXPECT_EQ(distribution_of_samples({}).count, 0);
}

}  // namespace
}  // namespace sb::metrics
