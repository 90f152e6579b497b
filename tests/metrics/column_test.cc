// The accumulators' columns (metrics/column.h): values kept in push order across chunks, a
// second group's first value writing the implied tags of the first.
#include "metrics/column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace sb::metrics {
namespace {

TEST(Column, KeepsPushOrderAcrossChunksAndEmptiesOnTake) {
  Column<double> c;
  const size_t n = 3 * Column<double>::kChunk + 5;
  for (size_t i = 0; i < n; ++i) c.push(static_cast<double>(i) * 0.5);
  ASSERT_EQ(c.size(), n);
  EXPECT_EQ(c[Column<double>::kChunk], static_cast<double>(Column<double>::kChunk) * 0.5);
  const std::vector<double> v = c.take();
  ASSERT_EQ(v.size(), n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], static_cast<double>(i) * 0.5) << i;
  EXPECT_TRUE(c.empty());
  c.push(7);  // usable again
  EXPECT_EQ(c.take(), std::vector<double>{7});
}

TEST(Column, FloatsWidenExactly) {
  Column<float> c;
  c.push(0.1f);
  c.push(1e-7f);
  const std::vector<double> v = c.take<double>();
  EXPECT_EQ(v, (std::vector<double>{static_cast<double>(0.1f), static_cast<double>(1e-7f)}));
}

TEST(TaggedColumn, ASecondGroupLateStillGathersEveryGroupInOrder) {
  TaggedColumn<double> c;
  // Group 0 alone for more than a chunk (no tags stored), then groups 1 and 2 interleaved.
  const size_t first = Column<double>::kChunk + 3;
  std::vector<double> want0, want1, want2;
  for (size_t i = 0; i < first; ++i) {
    c.push(static_cast<double>(i), 0);
    want0.push_back(static_cast<double>(i));
  }
  EXPECT_EQ(c.gather(1), std::vector<double>{});
  for (size_t i = 0; i < 30; ++i) {
    const auto g = static_cast<uint16_t>(i % 3);
    const double v = 1e6 + static_cast<double>(i);
    c.push(v, g);
    (g == 0 ? want0 : g == 1 ? want1 : want2).push_back(v);
  }
  EXPECT_EQ(c.gather(0), want0);
  EXPECT_EQ(c.gather(1), want1);
  EXPECT_EQ(c.gather(2), want2);
  EXPECT_EQ(c.gather(3), std::vector<double>{});
  const std::vector<double> all = c.take();
  ASSERT_EQ(all.size(), first + 30);
  EXPECT_EQ(all[first], 1e6);
  EXPECT_EQ(all.back(), 1e6 + 29);
}

}  // namespace
}  // namespace sb::metrics
