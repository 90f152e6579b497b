#include "workload/trace_prompt.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/splitmix64.h"
#include "workload/synthetic_text.h"
#include "workload/token_estimate.h"

namespace sb::workload {
namespace {

// Random streams of the blocks and of the per-request rest (synthetic_text.h), apart from
// prompt_source.cc's.
constexpr uint64_t kBlockStream = 0xB10C;
constexpr uint64_t kRestStream = 0x7E57;

std::string text_of_tokens(const tokenizer::Tokenizer* tok, uint64_t seed, uint64_t stream,
                           uint64_t index, std::string head, int64_t tokens) {
  if (tok) return synthetic_text_tokens(*tok, seed, stream, index, std::move(head), tokens);
  return synthetic_text(seed, stream, index, std::move(head),
                        static_cast<size_t>(tokens * kCharsPerToken));
}

}  // namespace

std::string trace_block_text(const tokenizer::Tokenizer* tok, uint64_t seed, uint64_t hash_id,
                             int64_t block_tokens) {
  return text_of_tokens(tok, seed, kBlockStream, hash_id,
                        fmt::format("{:016x} ", splitmix64(hash_id)), block_tokens);
}

std::string trace_prompt(const tokenizer::Tokenizer* tok, uint64_t seed, uint64_t index,
                         const TraceEntry& e, int64_t block_tokens) {
  const int64_t want = std::max<int64_t>(1, e.input_tokens);
  if (e.hash_ids.empty())
    return text_of_tokens(tok, seed, kRestStream, index, fmt::format("Request {}: ", index), want);
  std::string text;
  int64_t have = 0;  // tokens in text (blocks counted as block_tokens each)
  for (uint64_t h : e.hash_ids) {
    if (have >= want) break;
    text += trace_block_text(tok, seed, h, block_tokens);
    have += block_tokens;
  }
  if (!tok) {
    const auto want_chars = static_cast<size_t>(want * kCharsPerToken);
    if (text.size() > want_chars) text.resize(want_chars);
    if (text.size() < want_chars)
      text += synthetic_text(seed, kRestStream, index, "", want_chars - text.size());
    return text;
  }
  std::vector<int> ids = tok->encode(text);
  const auto n = static_cast<int64_t>(ids.size());
  if (n > want) {
    ids.resize(static_cast<size_t>(want));
    return tok->decode(ids);
  }
  if (n < want) text += text_of_tokens(tok, seed, kRestStream, index, " ", want - n);
  return text;
}

}  // namespace sb::workload
