#include "workload/output_tokens.h"

#include <algorithm>

namespace sb::workload {

void count_output_tokens(const tokenizer::Tokenizer& tok, metrics::RequestRecord& record) {
  if (record.output_text.empty()) return;
  using metrics::TokenSource;
  const TokenSource old = record.output_tokens_source;
  if (old == TokenSource::usage || old == TokenSource::details) {
    record.output_tokens_alt = record.output_tokens;
    record.output_tokens_alt_source = old;
  } else {  // an estimate is no independent count worth comparing
    record.output_tokens_alt = -1;
    record.output_tokens_alt_source = TokenSource::none;
  }
  record.output_tokens =
      tok.count(record.output_text) + std::max<int64_t>(record.reasoning_tokens, 0);
  record.output_tokens_source = TokenSource::tokenizer;
}

}  // namespace sb::workload
