#include "quality/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace sb::quality {
namespace {

// An n-gram (n <= 4) of token ids, two 32-bit ids per word. Counted per order, so keys of
// different orders never meet.
struct NgramKey {
  uint64_t a = 0, b = 0;
  bool operator==(const NgramKey&) const = default;
};
struct NgramHash {
  size_t operator()(const NgramKey& k) const {
    uint64_t h = k.a * 0x9E3779B97F4A7C15ULL ^ (k.b + 0x632BE59BD9B4E019ULL + (k.a << 6));
    h ^= h >> 29;
    return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ULL);
  }
};
using NgramCounts = std::array<std::unordered_map<NgramKey, int64_t, NgramHash>, kBleuOrder>;

NgramKey key_of(const std::vector<uint32_t>& ids, size_t start, int n) {
  NgramKey k;
  for (int i = 0; i < n; ++i) {
    const uint64_t id = ids[start + static_cast<size_t>(i)];
    (i < 2 ? k.a : k.b) |= id << ((i % 2) * 32);
  }
  return k;
}

void count_ngrams(const std::vector<uint32_t>& ids, NgramCounts& out) {
  for (int n = 1; n <= kBleuOrder; ++n)
    for (size_t i = 0; i + static_cast<size_t>(n) <= ids.size(); ++i)
      ++out[n - 1][key_of(ids, i, n)];
}

}  // namespace

BleuStats& BleuStats::operator+=(const BleuStats& o) {
  hyp_len += o.hyp_len;
  ref_len += o.ref_len;
  for (int n = 0; n < kBleuOrder; ++n) {
    correct[n] += o.correct[n];
    total[n] += o.total[n];
  }
  return *this;
}

BleuStats bleu_stats(const std::vector<std::string>& hyp,
                     const std::vector<std::vector<std::string>>& refs) {
  std::unordered_map<std::string_view, uint32_t> vocab;
  auto ids_of = [&](const std::vector<std::string>& tokens) {
    std::vector<uint32_t> ids;
    ids.reserve(tokens.size());
    for (const auto& t : tokens)
      ids.push_back(vocab.emplace(t, static_cast<uint32_t>(vocab.size())).first->second);
    return ids;
  };
  BleuStats s;
  s.hyp_len = static_cast<int64_t>(hyp.size());

  NgramCounts ref_max;
  int64_t closest_diff = -1;
  for (const auto& ref : refs) {
    NgramCounts counts;
    count_ngrams(ids_of(ref), counts);
    for (int n = 0; n < kBleuOrder; ++n)
      for (const auto& [k, c] : counts[n]) {
        int64_t& m = ref_max[n][k];
        m = std::max(m, c);
      }
    const auto len = static_cast<int64_t>(ref.size());
    const int64_t diff = std::llabs(s.hyp_len - len);
    if (closest_diff < 0 || diff < closest_diff || (diff == closest_diff && len < s.ref_len)) {
      closest_diff = diff;
      s.ref_len = len;
    }
  }

  NgramCounts hyp_counts;
  const std::vector<uint32_t> hyp_ids = ids_of(hyp);
  count_ngrams(hyp_ids, hyp_counts);
  for (int n = 0; n < kBleuOrder; ++n)
    for (const auto& [k, c] : hyp_counts[n]) {
      s.total[n] += c;
      if (auto it = ref_max[n].find(k); it != ref_max[n].end())
        s.correct[n] += std::min(c, it->second);
    }
  return s;
}

BleuScore compute_bleu(const BleuStats& stats, BleuSmooth smooth, double smooth_value,
                       bool effective_order) {
  if (smooth_value < 0) smooth_value = smooth == BleuSmooth::floor ? 0.1 : 1.0;
  BleuScore r;
  if (stats.hyp_len < stats.ref_len)
    r.bp = stats.hyp_len > 0 ? std::exp(1.0 - static_cast<double>(stats.ref_len) /
                                                  static_cast<double>(stats.hyp_len))
                             : 0.0;
  else
    r.bp = 1.0;
  if (std::all_of(stats.correct.begin(), stats.correct.end(), [](int64_t c) { return c == 0; }))
    return r;

  std::array<double, kBleuOrder> correct{}, total{};
  for (int n = 0; n < kBleuOrder; ++n) {
    correct[n] = static_cast<double>(stats.correct[n]);
    total[n] = static_cast<double>(stats.total[n]);
  }
  double smooth_mteval = 1.0;
  int eff_order = kBleuOrder;
  for (int n = 0; n < kBleuOrder; ++n) {
    if (smooth == BleuSmooth::add_k && n > 0) {
      correct[n] += smooth_value;
      total[n] += smooth_value;
    }
    if (total[n] == 0) break;
    if (effective_order) eff_order = n + 1;
    if (correct[n] == 0) {
      if (smooth == BleuSmooth::exp) {
        smooth_mteval *= 2;
        r.precisions[n] = 100.0 / (smooth_mteval * total[n]);
      } else if (smooth == BleuSmooth::floor) {
        r.precisions[n] = 100.0 * smooth_value / total[n];
      }
    } else {
      r.precisions[n] = 100.0 * correct[n] / total[n];
    }
  }
  double log_sum = 0;
  for (int n = 0; n < eff_order; ++n)
    log_sum += r.precisions[n] > 0 ? std::log(r.precisions[n]) : -9999999999.0;
  r.score = r.bp * std::exp(log_sum / eff_order);
  return r;
}

}  // namespace sb::quality
