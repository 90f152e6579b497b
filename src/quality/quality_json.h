#pragma once
// The `quality` object of a requests.jsonl line (report/request_jsonl.h), and back:
//   {"bleu": sentence BLEU 0..100, "chrf": 0..100, "rouge_l": 0..1, "exact_match": bool,
//    "empty_reference": bool,
//    "bleu_stats": [hyp_len, ref_len, correct_1..correct_4, total_1..total_4],
//    "chrf_stats": [hyp_1, ref_1, match_1, ..., hyp_6, ref_6, match_6]}
// The statistics make corpus scores rebuildable from requests.jsonl alone (`summarize`).
#include <string>

#include <nlohmann/json.hpp>

#include "quality/request_quality.h"

namespace sb::quality {

void append_quality_json(std::string& out, const RequestQuality& q);
// Throws sb::Error naming the field when the object is malformed.
RequestQuality quality_from_json(const nlohmann::json& j);

}  // namespace sb::quality
