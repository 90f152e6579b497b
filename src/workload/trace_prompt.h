#pragma once
// The prompt of a replayed trace entry (trace.h): its input length in tokens, and, for an
// entry with hash ids (Mooncake), its hash blocks' texts in order, so that two entries whose
// hash ids share a leading run share exactly that prompt prefix.
//
// Block text: hash id h is `block_tokens` tokens of seeded English-like text (synthetic_text.h,
// its own random stream, index h), opening with 16 hex digits of splitmix64(h) so that two
// different blocks differ from their first byte (a server's prefix cache then matches the
// shared blocks and nothing after). Without a tokenizer a token is exactly 4 characters
// (token_estimate.h: the simulator's and the estimate's rule), so a block is 4 x block_tokens
// bytes and the prefix is token-exact; with one, each block is block_tokens tokens of it on its
// own (a boundary between two blocks can merge differently).
//
// The prompt: the blocks of hash_ids in turn, cut to input_tokens; when the blocks are shorter
// than input_tokens (or there are none) the rest is text unique to the request index
// ("Request <index>: ..." when there are no blocks, as a synthetic prompt).
#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"
#include "workload/trace_line.h"

namespace sb::workload {

// Hash block `hash_id`'s text: exactly block_tokens tokens (of `tok`, or 4 characters each).
std::string trace_block_text(const tokenizer::Tokenizer* tok, uint64_t seed, uint64_t hash_id,
                             int64_t block_tokens);

// The prompt of entry `e` sent as request `index`: input_tokens tokens (exact without a
// tokenizer; with one, exact in practice).
std::string trace_prompt(const tokenizer::Tokenizer* tok, uint64_t seed, uint64_t index,
                         const TraceEntry& e, int64_t block_tokens);

}  // namespace sb::workload
