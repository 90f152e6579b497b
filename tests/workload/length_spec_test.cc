#include "workload/length_spec.h"

#include <cmath>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"

namespace sb::workload {
namespace {

std::string spec_error(std::string_view text) {
  try {
    parse_length_spec(text, "--input-dist");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

struct Moments {
  double mean = 0, sd = 0;
  int64_t min = INT64_MAX, max = INT64_MIN;
};

Moments sample_moments(const LengthSpec& spec, int n, uint64_t seed = 7) {
  double sum = 0, sum2 = 0;
  Moments m;
  for (int i = 0; i < n; ++i) {
    Rng rng(seed, static_cast<uint64_t>(i));
    const auto x = spec.sample(rng);
    sum += static_cast<double>(x);
    sum2 += static_cast<double>(x) * static_cast<double>(x);
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / n;
  m.sd = std::sqrt(sum2 / n - m.mean * m.mean);
  return m;
}

TEST(LengthSpec, ParsesEveryKind) {
  auto s = parse_length_spec("200", "--input-dist");
  EXPECT_EQ(s.kind, LengthSpec::Kind::fixed);
  EXPECT_EQ(s.min, 200);
  EXPECT_EQ(s.unit, LengthUnit::tokens);
  s = parse_length_spec("fixed:64,unit=chars", "--input-dist");
  EXPECT_EQ(s.min, 64);
  EXPECT_EQ(s.unit, LengthUnit::chars);
  s = parse_length_spec("uniform:min=50,max=100,unit=chars", "--input-dist");
  EXPECT_EQ(s.kind, LengthSpec::Kind::uniform);
  EXPECT_EQ(s.min, 50);
  EXPECT_EQ(s.max, 100);
  s = parse_length_spec(" normal:mean=200, sd=50, min=10, max=500 ", "--input-dist");
  EXPECT_EQ(s.kind, LengthSpec::Kind::normal);
  EXPECT_DOUBLE_EQ(s.mean, 200);
  EXPECT_DOUBLE_EQ(s.sd, 50);
  EXPECT_EQ(s.min, 10);
  EXPECT_EQ(s.max, 500);
  s = parse_length_spec("normal:mean=100,sd=10", "--input-dist");
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 160);  // mean + 6 sd
  s = parse_length_spec("empirical:10,20,20,40", "--input-dist");
  EXPECT_EQ(s.values, (std::vector<int64_t>{10, 20, 20, 40}));
  for (const char* t : {"fixed:7", "uniform:min=1,max=9,unit=chars",
                        "normal:mean=5,sd=2,min=1,max=20", "empirical:3,4"})
    EXPECT_EQ(parse_length_spec(parse_length_spec(t, "x").to_string(), "x").to_string(),
              parse_length_spec(t, "x").to_string());
}

TEST(LengthSpec, BadSpecsNameTheFlagAndTheFault) {
  EXPECT_NE(spec_error("").find("--input-dist '': empty"), std::string::npos);
  EXPECT_NE(spec_error("gamma:k=2").find("unknown distribution 'gamma'"), std::string::npos);
  EXPECT_NE(spec_error("uniform:min=5").find("uniform needs min= and max="), std::string::npos);
  EXPECT_NE(spec_error("uniform:min=9,max=5").find("min is above max"), std::string::npos);
  EXPECT_NE(spec_error("normal:mean=10").find("needs mean= and sd="), std::string::npos);
  EXPECT_NE(spec_error("normal:mean=10,sd=-1").find("sd must not be negative"), std::string::npos);
  EXPECT_NE(spec_error("uniform:min=1,max=2,foo=3").find("unknown key 'foo'"), std::string::npos);
  EXPECT_NE(spec_error("0").find("from 1 to 10000000"), std::string::npos);
  EXPECT_NE(spec_error("12.5").find("whole number"), std::string::npos);
  EXPECT_NE(spec_error("fixed:abc").find("'abc' is not a number"), std::string::npos);
  EXPECT_NE(spec_error("fixed:5,unit=words").find("unit 'words'"), std::string::npos);
  EXPECT_NE(spec_error("empirical:1,,2").find("empty item"), std::string::npos);
  EXPECT_NE(spec_error("uniform:min=1,min=2,max=3").find("'min' given twice"), std::string::npos);
  EXPECT_NE(spec_error("bogus").find("expected N, fixed:N, uniform:"), std::string::npos);
}

TEST(LengthSpec, SamplesFollowTheDistributionForAFixedSeed) {
  const int n = 20000;
  auto m = sample_moments(parse_length_spec("uniform:min=50,max=100", "x"), n);
  EXPECT_EQ(m.min, 50);
  EXPECT_EQ(m.max, 100);
  EXPECT_NEAR(m.mean, 75, 0.5);
  EXPECT_NEAR(m.sd, std::sqrt((51.0 * 51.0 - 1) / 12), 0.3);

  m = sample_moments(parse_length_spec("normal:mean=200,sd=50,min=10,max=500", "x"), n);
  EXPECT_GE(m.min, 10);
  EXPECT_LE(m.max, 500);
  EXPECT_NEAR(m.mean, 200, 1.5);
  EXPECT_NEAR(m.sd, 50, 1.5);

  // Truncation: redrawn inside [180, 220], not piled up at the bounds.
  std::map<int64_t, int> hist;
  const auto tight = parse_length_spec("normal:mean=200,sd=50,min=180,max=220", "x");
  for (int i = 0; i < n; ++i) {
    Rng rng(1, static_cast<uint64_t>(i));
    ++hist[tight.sample(rng)];
  }
  EXPECT_EQ(hist.begin()->first, 180);
  EXPECT_EQ(hist.rbegin()->first, 220);
  EXPECT_LT(hist[180], 3 * n / 41);  // about n/41 each, no spike at the edge

  std::map<int64_t, int> counts;
  const auto emp = parse_length_spec("empirical:10,20,20,40", "x");
  for (int i = 0; i < n; ++i) {
    Rng rng(3, static_cast<uint64_t>(i));
    ++counts[emp.sample(rng)];
  }
  EXPECT_EQ(counts.size(), 3u);
  EXPECT_NEAR(counts[20] / double(n), 0.5, 0.02);
  EXPECT_NEAR(counts[10] / double(n), 0.25, 0.02);
  EXPECT_NEAR(counts[40] / double(n), 0.25, 0.02);

  // Reproducible: the same seed gives the same draws.
  EXPECT_EQ(sample_moments(parse_length_spec("uniform:min=1,max=1000", "x"), 500, 9).mean,
            sample_moments(parse_length_spec("uniform:min=1,max=1000", "x"), 500, 9).mean);
}

}  // namespace
}  // namespace sb::workload
