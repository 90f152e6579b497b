#include "quality/request_quality.h"

#include "quality/exact_match.h"
#include "quality/rouge_l.h"
#include "quality/utf8.h"

namespace sb::quality {
namespace {

std::string_view rstrip(std::string_view s) {
  // Python str.rstrip(): trailing Unicode whitespace. Only ASCII and the multi-byte spaces
  // of utf8.h end a line in practice; decode the tail code point by code point.
  for (;;) {
    if (s.empty()) return s;
    size_t start = s.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 &&
           s.size() - start < 4)
      --start;
    const std::u32string cp = decode_utf8(s.substr(start));
    if (cp.size() != 1 || !is_space(cp[0])) return s;
    s.remove_suffix(s.size() - start);
  }
}

void lowercase_ascii(std::vector<std::string>& tokens) {
  for (auto& t : tokens)
    for (char& c : t)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
}

}  // namespace

RequestQuality score_request(std::string_view hypothesis, std::string_view reference,
                             Tokenize mode) {
  const Tokenize t = resolve(mode, reference, hypothesis);
  std::vector<std::string> hyp = tokenize(rstrip(hypothesis), t);
  std::vector<std::vector<std::string>> refs{tokenize(rstrip(reference), t)};
  RequestQuality q;
  q.empty_reference = reference.empty();
  q.bleu_stats = bleu_stats(hyp, refs);
  q.bleu = sentence_bleu(q.bleu_stats);
  q.chrf_stats = chrf_stats(hypothesis, reference);
  q.chrf = chrf_score(q.chrf_stats);
  lowercase_ascii(hyp);
  lowercase_ascii(refs[0]);
  q.rouge_l = rouge_l(hyp, refs[0]).f1;
  q.exact_match = exact_match(hypothesis, reference);
  return q;
}

void QualityTotals::add(const RequestQuality& q) {
  bleu_ += q.bleu_stats;
  chrf_ += q.chrf_stats;
  rouge_l_sum_ += q.rouge_l;
  exact_ += q.exact_match ? 1 : 0;
  empty_refs_ += q.empty_reference ? 1 : 0;
  ++scored_;
}

QualityTotals& QualityTotals::operator+=(const QualityTotals& o) {
  bleu_ += o.bleu_;
  chrf_ += o.chrf_;
  rouge_l_sum_ += o.rouge_l_sum_;
  exact_ += o.exact_;
  scored_ += o.scored_;
  empty_refs_ += o.empty_refs_;
  return *this;
}

std::optional<CorpusQuality> QualityTotals::corpus() const {
  if (scored_ == 0) return std::nullopt;
  CorpusQuality c;
  c.bleu = corpus_bleu(bleu_);
  c.chrf = chrf_score(chrf_);
  c.rouge_l = rouge_l_sum_ / static_cast<double>(scored_);
  c.exact_match = static_cast<double>(exact_) / static_cast<double>(scored_);
  c.scored = scored_;
  c.empty_references = empty_refs_;
  return c;
}

}  // namespace sb::quality
