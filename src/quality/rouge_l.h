#pragma once
// ROUGE-L (Lin 2004, section 3.1) for one sentence pair: LCS = the length of the longest
// common subsequence of the token sequences; P = LCS / hypothesis tokens, R = LCS / reference
// tokens; F1 = 2PR / (P + R) (beta = 1, as Google's rouge_score reports `rougeL` fmeasure).
// All three are 0 when either side has no token or LCS is 0 (rouge_score does the same).
// Tokens are compared exactly: the caller tokenizes (request_quality.h: the BLEU tokenizer's
// tokens, ASCII-lowercased). Time O(n*m), memory O(min(n, m)).
#include <cstdint>
#include <string>
#include <vector>

namespace sb::quality {

struct RougeL {
  int64_t lcs = 0;
  double precision = 0, recall = 0, f1 = 0;
};

int64_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b);
RougeL rouge_l(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);

}  // namespace sb::quality
