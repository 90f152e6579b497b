#pragma once
// Output agreement between two runs of the same prompts (`servebench agree A B`): the
// responses of run A are the references, run B's the hypotheses, paired by request id.
//
// Per pair: identical (byte-equal), and request_quality.h's scores of B against A. Over the
// pairs: identical rate, exact_match (SQuAD-normalized, fraction), corpus BLEU and chrF of B
// against A (0..100), mean ROUGE-L F1, and output-token differences (|tokens_B - tokens_A|).
// The most divergent pairs are those with the lowest sentence BLEU (then chrF, then id).
// Runs are comparable only when their prompts are the same: fingerprint() is what must match.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "quality/tokenizer.h"

namespace sb::quality {

struct RunOutput {
  uint64_t id = 0;
  bool ok = true;  // a failed request is reported as unpaired
  std::string_view text;
  int64_t output_tokens = 0;
};

struct DivergentPair {
  uint64_t id = 0;
  double bleu = 0, chrf = 0;
  int64_t tokens_a = 0, tokens_b = 0;
  std::string text_a, text_b;  // the first 80 bytes of each (cut at a UTF-8 boundary)
};

struct Agreement {
  int64_t pairs = 0;
  int64_t only_a = 0, only_b = 0;  // ids present (ok) in one run only
  int64_t failed = 0;              // ids present in both where either request failed
  int64_t empty_a = 0;             // pairs whose A output (the reference) is empty
  double identical = 0;            // fraction of pairs, 0..1
  double exact_match = 0;          // 0..1
  double bleu = 0, chrf = 0;       // 0..100
  double rouge_l = 0;              // 0..1
  double mean_abs_token_diff = 0;
  int64_t token_count_differs = 0;
  int64_t max_abs_token_diff = 0;
  std::vector<DivergentPair> most_divergent;
};

// `top`: how many divergent pairs to keep (pairs with sentence BLEU 100 are never listed).
Agreement compute_agreement(const std::vector<RunOutput>& a, const std::vector<RunOutput>& b,
                            Tokenize mode = Tokenize::automatic, size_t top = 5);

// A --fail-below gate "METRIC:VALUE": identical, exact_match, rouge_l (0..1) or bleu, chrf
// (0..100). Throws sb::Error (usage) naming the gate and the metric names.
struct AgreementGate {
  std::string metric;
  double min = 0;
};
AgreementGate parse_agreement_gate(std::string_view spec);
double agreement_metric(const Agreement& a, std::string_view metric);
// One line per failed gate ("bleu 12.30 is below 30"); empty when all pass.
std::vector<std::string> failed_gates(const Agreement& a, const std::vector<AgreementGate>& gates);

// What two runs must share for their outputs to be paired: config.workload (prompts, lengths,
// dataset, scenario) and config.load.seed from summary.json. Lists "field: A vs B" for each
// difference; empty when they match.
std::vector<std::string> fingerprint_differences(const nlohmann::json& summary_a,
                                                 const nlohmann::json& summary_b);

nlohmann::json agreement_to_json(const Agreement& a);
std::string agreement_to_text(const Agreement& a);

}  // namespace sb::quality
