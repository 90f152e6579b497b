// The helpers that exist once for the whole project: splitmix64 and the error clip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error_clip.h"
#include "common/splitmix64.h"

namespace sb {
namespace {

TEST(Splitmix64, ReferenceSequenceFromSeedZero) {
  // The first outputs of Vigna's splitmix64.c from state 0.
  uint64_t state = 0;
  EXPECT_EQ(splitmix64_next(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(splitmix64_next(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(splitmix64_next(state), 0x06C45D188009454FULL);
  EXPECT_EQ(state, 3 * 0x9E3779B97F4A7C15ULL);
  // The stateless form is one step from x, x unchanged.
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFULL);
  uint64_t x = 0x9E3779B97F4A7C15ULL;
  EXPECT_EQ(splitmix64(x), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(x, 0x9E3779B97F4A7C15ULL);
}

TEST(ErrorClip, KeepsTheFirst512Bytes) {
  EXPECT_EQ(clip_error("short"), "short");
  const std::string big(1000, 'x');
  EXPECT_EQ(clip_error(big).size(), kErrorMessageBytes);
  EXPECT_EQ(kErrorMessageBytes, 512u);
  std::string out;
  for (int i = 0; i < 10; ++i) append_clipped(out, std::string(100, 'a' + i));
  ASSERT_EQ(out.size(), 512u);
  EXPECT_EQ(out.substr(500), std::string(12, 'f'));
  append_clipped(out, "more");
  EXPECT_EQ(out.size(), 512u);
}

}  // namespace
}  // namespace sb
