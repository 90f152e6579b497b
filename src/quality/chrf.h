#pragma once
// chrF (Popović 2015) with sacreBLEU 2.x's defaults: character n-grams of orders 1..6 over
// Unicode code points, whitespace removed first (Python ''.join(s.split())), no word
// n-grams, beta = 2, case kept.
//
// Sufficient statistics per order n: hypothesis n-grams, reference n-grams, and matches
// (sum over n-grams of min(hyp count, ref count)). A corpus score sums the statistics of every
// sentence and scores the sums once (sacreBLEU corpus_score). With several references a
// sentence keeps the statistics of the reference with the best sentence chrF (first wins
// ties).
//
// Score (sacreBLEU CHRF._compute_f_score, eps_smoothing off): per order, precision =
// match / hyp (1e-16 when hyp = 0), recall = match / ref (1e-16 when ref = 0); the orders
// with hyp > 0 and ref > 0 count as the effective order; mean precision P and mean recall R
// are the sums over all orders divided by the effective order (both 0 when it is 0);
// chrF = 100 * (1 + beta^2) * P * R / (beta^2 * P + R), 0 when P + R = 0.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace sb::quality {

inline constexpr int kChrfOrder = 6;

struct ChrfStats {
  std::array<int64_t, kChrfOrder> hyp{}, ref{}, match{};  // index n - 1
  ChrfStats& operator+=(const ChrfStats& o);
};

ChrfStats chrf_stats(std::string_view hypothesis, std::string_view reference);
ChrfStats chrf_stats(std::string_view hypothesis, const std::vector<std::string_view>& references);

// 0..100.
double chrf_score(const ChrfStats& stats, double beta = 2.0);

}  // namespace sb::quality
