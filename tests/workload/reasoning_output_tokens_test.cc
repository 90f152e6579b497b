// --tokenizer on a reasoning model: the tokenizer counts the content text, and the request's
// reasoning tokens (not in output_text) are added, so output_tokens keeps counting every
// generated token as the server's usage does (docs/metrics.md, "Reasoning models").
#include <gtest/gtest.h>

#include "../tokenizer/test_models.h"
#include "tokenizer/bpe_tokenizer.h"
#include "workload/output_tokens.h"

namespace sb::workload {
namespace {

TEST(ReasoningOutputTokens, TokenizerCountAddsTheReasoningTokens) {
  const auto tok = tokenizer::parse_bpe_tokenizer_json(testing::kHandBpeJson);
  metrics::RequestRecord r;
  r.output_text = "hello world!";  // 3 tokens
  r.output_tokens = 20;
  r.output_tokens_source = metrics::TokenSource::usage;
  r.reasoning_tokens = 16;
  r.reasoning_tokens_source = metrics::TokenSource::usage;
  count_output_tokens(*tok, r);
  EXPECT_EQ(r.output_tokens, 3 + 16);
  EXPECT_EQ(r.output_tokens_source, metrics::TokenSource::tokenizer);
  EXPECT_EQ(r.output_tokens_alt, 20);
  EXPECT_EQ(r.reasoning_tokens, 16);  // unchanged

  metrics::RequestRecord plain;  // no reasoning (-1): the text's count alone
  plain.output_text = "hello world!";
  count_output_tokens(*tok, plain);
  EXPECT_EQ(plain.output_tokens, 3);
}

}  // namespace
}  // namespace sb::workload
