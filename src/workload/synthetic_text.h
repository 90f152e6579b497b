#pragma once
// Seeded English-like text for synthetic prompts: sentences of the form
// "Det [Adj] Noun [Adv] Verb Det [Adj] Noun [Prep Det Noun]." from a built-in word list,
// so the text reads like (odd) English rather than word salad. The same (seed, stream,
// index) always gives the same text, on any platform.
#include <cstdint>
#include <string>

#include "tokenizer/tokenizer.h"

namespace sb::workload {

// `head` followed by sentences, cut to exactly `chars` bytes (inside `head` when it is
// longer); a final space becomes '.'.
std::string synthetic_text(uint64_t seed, uint64_t stream, uint64_t index, std::string head,
                           size_t chars);

// The same text cut to `tokens` tokens of `tok`: the decoded first `tokens` ids of a longer
// text, adjusted until it re-encodes to exactly `tokens` (a cut can merge differently at the
// boundary), then by trimming or adding a character at the end. Exact in practice; when that
// fails, the closest text found.
std::string synthetic_text_tokens(const tokenizer::Tokenizer& tok, uint64_t seed, uint64_t stream,
                                  uint64_t index, std::string head, int64_t tokens);

}  // namespace sb::workload
