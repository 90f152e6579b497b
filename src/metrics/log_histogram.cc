#include "metrics/log_histogram.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::metrics {

namespace {

constexpr int kSubBits = 11;  // 2048 exact buckets below 2^11
constexpr int64_t kSubCount = int64_t{1} << kSubBits;
constexpr int64_t kHalf = kSubCount / 2;  // 1024 buckets per power of two above

}  // namespace

size_t LogHistogram::index_of(int64_t value) {
  if (value < kSubCount) return static_cast<size_t>(value);
  const int msb = 63 - std::countl_zero(static_cast<uint64_t>(value));  // >= kSubBits
  const int shift = msb - (kSubBits - 1);                               // >= 1
  const int64_t sub = value >> shift;                                   // in [kHalf, kSubCount)
  return static_cast<size_t>(kSubCount + (shift - 1) * kHalf + (sub - kHalf));
}

int64_t LogHistogram::bucket_low(size_t index) {
  const auto i = static_cast<int64_t>(index);
  if (i < kSubCount) return i;
  const int64_t k = i - kSubCount;
  const int64_t shift = k / kHalf + 1;
  return (kHalf + k % kHalf) << shift;
}

int64_t LogHistogram::bucket_width(size_t index) {
  const auto i = static_cast<int64_t>(index);
  if (i < kSubCount) return 1;
  return int64_t{1} << ((i - kSubCount) / kHalf + 1);
}

LogHistogram::LogHistogram(int64_t highest_value)
    : highest_(std::max<int64_t>(highest_value, 1)), counts_(index_of(highest_) + 1, 0) {}

void LogHistogram::record_n(int64_t value, uint64_t n) {
  if (n == 0) return;
  if (value < 0 || value > highest_) {
    clamped_ += n;
    value = value < 0 ? 0 : highest_;
  }
  counts_[index_of(value)] += n;
  if (count_ == 0 || value < min_) min_ = value;
  if (count_ == 0 || value > max_) max_ = value;
  count_ += n;
  const auto v = static_cast<long double>(value);
  sum_ += v * static_cast<long double>(n);
  sum_sq_ += v * v * static_cast<long double>(n);
}

void LogHistogram::merge(const LogHistogram& other) {
  if (other.highest_ != highest_)
    throw Error(fmt::format("cannot merge histograms with different ranges ({} vs {})", highest_,
                            other.highest_));
  if (other.count_ == 0) return;
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
  count_ += other.count_;
  clamped_ += other.clamped_;
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
}

void LogHistogram::reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = clamped_ = 0;
  min_ = max_ = 0;
  sum_ = sum_sq_ = 0;
}

double LogHistogram::mean() const {
  return count_ ? static_cast<double>(sum_ / static_cast<long double>(count_)) : 0.0;
}

double LogHistogram::stddev() const {
  if (count_ == 0) return 0;
  const long double n = static_cast<long double>(count_);
  const long double m = sum_ / n;
  const long double var = sum_sq_ / n - m * m;
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

double LogHistogram::value_at_rank(uint64_t rank) const {
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen > rank) {
      const double mid =
          static_cast<double>(bucket_low(i)) + static_cast<double>(bucket_width(i) - 1) / 2.0;
      return std::clamp(mid, static_cast<double>(min_), static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

double LogHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(count_ - 1);
  const auto lo = static_cast<uint64_t>(std::floor(rank));
  const double frac = rank - static_cast<double>(lo);
  const double v_lo = value_at_rank(lo);
  if (frac == 0 || lo + 1 >= count_) return v_lo;
  return v_lo + frac * (value_at_rank(lo + 1) - v_lo);
}

Distribution LogHistogram::distribution(double scale) const {
  Distribution d;
  if (count_ == 0) return d;
  d.count = static_cast<int64_t>(count_);
  d.mean = mean() * scale;
  d.stddev = stddev() * scale;
  d.min = static_cast<double>(min_) * scale;
  d.max = static_cast<double>(max_) * scale;
  d.p50 = percentile(50) * scale;
  d.p90 = percentile(90) * scale;
  d.p95 = percentile(95) * scale;
  d.p99 = percentile(99) * scale;
  d.p999 = percentile(99.9) * scale;
  return d;
}

std::string LogHistogram::serialize() const {
  std::string out = fmt::format("sbhist1 {} {} {} {} {} {} {}", highest_, count_, clamped_, min(),
                                max(), static_cast<double>(sum_), static_cast<double>(sum_sq_));
  for (size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) fmt::format_to(std::back_inserter(out), " {}:{}", i, counts_[i]);
  return out;
}

namespace {

// Splits off the next space-separated token of `text`.
std::string_view next_token(std::string_view& text) {
  const size_t start = text.find_first_not_of(' ');
  if (start == std::string_view::npos) {
    text = {};
    return {};
  }
  text.remove_prefix(start);
  const size_t end = std::min(text.find(' '), text.size());
  std::string_view tok = text.substr(0, end);
  text.remove_prefix(end);
  return tok;
}

template <class T>
T parse_number(std::string_view tok) {
  T v{};
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size() || tok.empty())
    throw Error(fmt::format("malformed serialized histogram: bad number '{}'", tok));
  return v;
}

}  // namespace

LogHistogram LogHistogram::deserialize(std::string_view text) {
  if (next_token(text) != "sbhist1") throw Error("malformed serialized histogram: no 'sbhist1'");
  LogHistogram h(parse_number<int64_t>(next_token(text)));
  h.count_ = parse_number<uint64_t>(next_token(text));
  h.clamped_ = parse_number<uint64_t>(next_token(text));
  h.min_ = parse_number<int64_t>(next_token(text));
  h.max_ = parse_number<int64_t>(next_token(text));
  h.sum_ = parse_number<double>(next_token(text));
  h.sum_sq_ = parse_number<double>(next_token(text));
  uint64_t total = 0;
  for (std::string_view tok = next_token(text); !tok.empty(); tok = next_token(text)) {
    const size_t colon = tok.find(':');
    if (colon == std::string_view::npos)
      throw Error(fmt::format("malformed serialized histogram: bad bucket '{}'", tok));
    const auto i = parse_number<size_t>(tok.substr(0, colon));
    if (i >= h.counts_.size())
      throw Error(fmt::format("malformed serialized histogram: bucket {} out of range", i));
    const auto c = parse_number<uint64_t>(tok.substr(colon + 1));
    h.counts_[i] += c;
    total += c;
  }
  if (total != h.count_)
    throw Error("malformed serialized histogram: bucket counts do not add up to the count");
  return h;
}

}  // namespace sb::metrics
