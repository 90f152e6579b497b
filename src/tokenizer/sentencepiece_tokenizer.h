#pragma once
// A SentencePiece `tokenizer.model` through libsentencepiece. Its Encode and Decode are
// const and keep no per-call state in the processor, so one instance serves all threads.
#include <memory>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace sb::tokenizer {

// Throws sb::Error (usage) with SentencePiece's own reason when `bytes` is not a model.
std::unique_ptr<Tokenizer> load_sentencepiece(std::string_view bytes);

}  // namespace sb::tokenizer
