#pragma once
// Exact output token counts (docs/metrics.md): with a tokenizer, a finished request's output
// tokens are the tokenizer's count of its streamed content text. A count the server
// reported (usage.completion_tokens or TGI details.generated_tokens) becomes the record's
// alternative count, so the run summary reports the discrepancy (token_sources.discrepancy:
// mean |tokenizer - usage|). It is rarely zero: servers count special tokens (EOS) that carry
// no text, and a tokenizer re-encoding text may merge across the boundaries of generated
// tokens.
#include "metrics/request_record.h"
#include "tokenizer/tokenizer.h"

namespace sb::workload {

// Recounts `record` when it holds output text; leaves it as it is otherwise (no output, or
// text not kept). Reasoning text is not in output_text: a request that reasoned keeps its
// reasoning_tokens (usage or estimate) and they are added to the tokenizer's count, so that
// output_tokens counts every generated token, reasoning included (docs/metrics.md).
void count_output_tokens(const tokenizer::Tokenizer& tok, metrics::RequestRecord& record);

}  // namespace sb::workload
