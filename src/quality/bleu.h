#pragma once
// BLEU (Papineni et al. 2002) as sacreBLEU 2.x computes it, from sufficient statistics so that
// a corpus score needs no stored text: per sentence, the hypothesis and closest reference
// lengths and, for n = 1..4, the clipped n-gram matches and the hypothesis n-gram count. A
// corpus score sums the statistics of every sentence and scores the sums once.
//
// compute_bleu() follows sacreBLEU's BLEU.compute_bleu():
//   - brevity penalty bp = 1 if hyp_len >= ref_len, exp(1 - ref_len / hyp_len) if
//     0 < hyp_len < ref_len, 0 if hyp_len == 0;
//   - no matched n-gram of any order: score 0 (sacreBLEU #141);
//   - precisions p_n = 100 * correct_n / total_n; an order with total_n == 0 ends the loop;
//     an order with correct_n == 0 is smoothed: exp (NIST / mteval-v13a, sacreBLEU's default):
//     the k-th such order gets 100 / (2^k * total_n); floor: 100 * value / total_n (value
//     default 0.1); add-k (value default 1): correct_n and total_n += value for n >= 2;
//     none: 0 (log 0 taken as -9999999999, so the score is 0);
//   - effective order: the mean of logs runs over the orders up to the last with total_n > 0
//     (sentence BLEU); otherwise over all 4 (corpus BLEU);
//   - score = bp * exp(mean of log p_n), on sacreBLEU's 0..100 scale.
// Defaults: corpus_bleu = exp smoothing, effective order off (sacreBLEU corpus_bleu);
// sentence_bleu = exp smoothing, effective order on (sacreBLEU sentence_bleu).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sb::quality {

inline constexpr int kBleuOrder = 4;

struct BleuStats {
  int64_t hyp_len = 0;                        // hypothesis tokens
  int64_t ref_len = 0;                        // closest reference's tokens (ties: the shorter)
  std::array<int64_t, kBleuOrder> correct{};  // clipped matches of order n + 1
  std::array<int64_t, kBleuOrder> total{};    // hypothesis n-grams of order n + 1

  BleuStats& operator+=(const BleuStats& o);
};

// Statistics of one tokenized hypothesis against one or more tokenized references (n-gram
// counts clipped by the maximum count over the references). No reference: ref_len 0.
BleuStats bleu_stats(const std::vector<std::string>& hyp,
                     const std::vector<std::vector<std::string>>& refs);

enum class BleuSmooth { none, floor, add_k, exp };

struct BleuScore {
  double score = 0;                             // 0..100
  std::array<double, kBleuOrder> precisions{};  // 0..100
  double bp = 0;
};

// smooth_value < 0: the method's default (floor 0.1, add-k 1).
BleuScore compute_bleu(const BleuStats& stats, BleuSmooth smooth = BleuSmooth::exp,
                       double smooth_value = -1, bool effective_order = false);

inline double corpus_bleu(const BleuStats& summed) {
  return compute_bleu(summed).score;
}
inline double sentence_bleu(const BleuStats& s) {
  return compute_bleu(s, BleuSmooth::exp, -1, true).score;
}

}  // namespace sb::quality
