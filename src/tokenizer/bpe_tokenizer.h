#pragma once
// A Hugging Face `tokenizer.json` whose model is a byte-level BPE (GPT-2, Llama-3, Qwen).
//
// Supported, as the `tokenizers` library applies them when encoding without special tokens:
//   - added_tokens: matched in the text first (longest match wins), each its own id;
//   - pre_tokenizer: ByteLevel (use_regex: GPT-2's pattern; add_prefix_space), Split with a
//     Regex or String pattern and behaviour Isolated or Removed (invert false), Digits, and
//     a Sequence of these; a ByteLevel step is required (it is what makes the BPE byte-level);
//   - model: type BPE, vocab, merges ("a b" strings or ["a", "b"] pairs; rank = position),
//     ignore_merges (Llama-3: a pre-token found whole in the vocabulary is one token),
//     unk_token;
//   - decoding: byte-level characters back to bytes; added tokens as their content.
// Not applied: normalizers (NFC changes nothing for text already in NFC; others are refused
// only through their pre-tokenizer), post-processors (they add BOS/EOS), the added tokens'
// lstrip/rstrip/single_word flags.
#include <memory>
#include <string_view>

#include "tokenizer/tokenizer.h"

namespace sb::tokenizer {

// Pure: the file's text in, a tokenizer out. Throws sb::Error (usage) naming the JSON field
// that is missing, malformed or unsupported (e.g. a WordPiece model or a Metaspace
// pre-tokenizer, with the fix).
std::unique_ptr<Tokenizer> parse_bpe_tokenizer_json(std::string_view json_text);

}  // namespace sb::tokenizer
