#pragma once
// Exact token counts (docs/metrics.md `output_tokens` "else a tokenizer"): the model's own
// tokenizer, loaded from the file a server ships with the model:
//   - a SentencePiece `tokenizer.model` (Llama-2, Mistral, Gemma; libsentencepiece), or
//   - a Hugging Face `tokenizer.json` whose model is a byte-level BPE (GPT-2, Llama-3, Qwen:
//     ByteLevel byte-to-unicode map, merge ranks, Split pre-tokenizer regexes run with PCRE2,
//     added and special tokens).
// Counts are of the text alone: no BOS/EOS or chat template is added, which is what a
// server's usage.completion_tokens counts for generated text (prompt counts made here miss
// the template's few tokens; see docs/workloads.md).
//
// Thread safety: every const member may be called concurrently by any number of threads
// (the worker threads share one tokenizer); nothing is cached or mutated after loading.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sb::tokenizer {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Token ids of `text`, no special tokens added. Never throws for any byte string.
  virtual std::vector<int> encode(std::string_view text) const = 0;
  // The text of `ids`; unknown ids decode to nothing.
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  virtual int64_t count(std::string_view text) const {
    return static_cast<int64_t>(encode(text).size());
  }
  virtual std::string_view kind() const = 0;  // "sentencepiece" | "bpe"
  virtual size_t vocab_size() const = 0;
};

// Loads `path` (its content decides the kind: a JSON object is a tokenizer.json, anything
// else must be a SentencePiece model). Throws sb::Error (usage) naming the path and what is
// wrong: unreadable, neither kind, or an unsupported tokenizer.json model.
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path);

// The same from bytes already read; `name` is used in messages only.
std::unique_ptr<Tokenizer> load_tokenizer_from_bytes(std::string_view bytes, std::string_view name);

}  // namespace sb::tokenizer
