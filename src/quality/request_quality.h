#pragma once
// Quality of one response against its reference, and the streaming corpus totals.
//
// score_request() tokenizes once (tokenizer.h; `automatic` decided on the reference) and
// returns the per-request scores plus the sufficient statistics a corpus score needs, so the
// output text can be dropped right after (outputs are kept only when asked):
//   bleu         sentence BLEU, sacreBLEU sentence_bleu defaults (exp smoothing, effective
//                order on), 0..100
//   chrf         sentence chrF (chrf.h), 0..100
//   rouge_l      ROUGE-L F1 over the same tokens, ASCII-lowercased (rouge_l.h), 0..1
//   exact_match  SQuAD-normalized equality (exact_match.h)
// The hypothesis is right-stripped before BLEU tokenization, as sacreBLEU does.
//
// QualityTotals::add() accumulates per request; corpus() gives
//   bleu         corpus BLEU of the summed statistics (sacreBLEU corpus_bleu: 13a by
//                default, exp smoothing, no effective order), 0..100
//   chrf         corpus chrF of the summed statistics, 0..100
//   rouge_l      mean of the per-request ROUGE-L F1 (rouge_score's aggregation), 0..1
//   exact_match  fraction of requests that matched, 0..1
//   scored       requests added; empty_references: of those, with an empty reference
#include <cstdint>
#include <optional>
#include <string_view>

#include "quality/bleu.h"
#include "quality/chrf.h"
#include "quality/tokenizer.h"

namespace sb::quality {

struct RequestQuality {
  double bleu = 0;
  double chrf = 0;
  double rouge_l = 0;
  bool exact_match = false;
  bool empty_reference = false;
  BleuStats bleu_stats;
  ChrfStats chrf_stats;
};

RequestQuality score_request(std::string_view hypothesis, std::string_view reference,
                             Tokenize mode = Tokenize::automatic);

struct CorpusQuality {
  double bleu = 0, chrf = 0, rouge_l = 0, exact_match = 0;
  int64_t scored = 0;
  int64_t empty_references = 0;
};

class QualityTotals {
 public:
  void add(const RequestQuality& q);
  QualityTotals& operator+=(const QualityTotals& o);
  int64_t scored() const { return scored_; }
  // nullopt when nothing was scored.
  std::optional<CorpusQuality> corpus() const;

 private:
  BleuStats bleu_;
  ChrfStats chrf_;
  double rouge_l_sum_ = 0;
  int64_t exact_ = 0;
  int64_t scored_ = 0;
  int64_t empty_refs_ = 0;
};

}  // namespace sb::quality
