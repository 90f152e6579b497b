#pragma once
// Prompts to send, one per request index: synthetic English-like text of a target length
// (fixed, or drawn from a length distribution, or from a scenario preset with its request
// classes), a shared-prefix grid, the lines of a prompt file, or the entries of a dataset
// (JSONL, ShareGPT, image files). Deterministic per (seed, index), so a run can be repeated
// exactly, and a const PromptSource may be shared by all workers (so may its tokenizer).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"
#include "workload/length_spec.h"
#include "workload/scenario.h"
#include "workload/shared_prefix.h"

namespace sb::workload {

struct Trace;  // workload/trace.h

struct WorkItem {
  std::string prompt;
  std::string messages_json;  // a JSON array of chat messages sent as-is; empty: use prompt
  int64_t max_tokens = 0;     // output tokens to request
  int64_t input_tokens = 0;   // counted by the tokenizer when one is set, else estimated
  std::string request_class = "default";
  std::string reference;  // the expected answer (dataset `reference`), for quality scoring
  std::string image_url;  // the item's image (images dataset, `image` field) as sent; or empty
  // --api embeddings / rerank (workload/pooling_item.h): the inputs to embed or the documents
  // to score (texts, or image URLs when image_inputs); `prompt` is then rerank's query.
  std::vector<std::string> inputs;
  bool image_inputs = false;
};

// One request of a replayed run (servebench calibrate, src/calibrate/replay.h): its lengths as
// measured.
struct ReplayLength {
  int64_t input_tokens = 1;  // prompt tokens
  int64_t max_tokens = 1;    // output tokens to request
  std::string request_class = "default";
};

struct WorkloadConfig {
  int64_t input_tokens = 256;   // synthetic prompt length (tokens); 1 .. 10,000,000
  int64_t output_tokens = 128;  // max_tokens of every item
  std::string prompt_file;      // one prompt per line; empty: synthetic prompts
  uint64_t seed = 0;
  std::string scenario;     // named preset: chat | long | mixed[:CHAT/LONG]; empty = none
  std::string input_dist;   // length spec (length_spec.h); overrides input_tokens / presets
  std::string output_dist;  // output length spec, tokens; overrides output_tokens / presets
  std::string dataset;      // dataset file (images: a folder); empty = synthetic
  std::string dataset_format = "auto";  // auto | synthetic | jsonl | sharegpt | images
  bool strict = false;        // a malformed dataset record is an error rather than skipped
  std::string shared_prefix;  // "prefixes=N,suffixes=M[,prefix=T][,suffix=T][,unit=chars]"
  std::string tokenizer;      // tokenizer.model or tokenizer.json; empty = estimates
  // --batch-size: inputs per embeddings request, documents per rerank request (>= 1).
  int64_t batch_inputs = 1;
  // Replay: request i is a synthetic prompt of exactly replay[i % size].input_tokens tokens
  // (as estimated: 4 characters a token), asking for its max_tokens, in its class. When
  // non-empty it replaces every other source and length setting. Not echoed in summary.json.
  std::shared_ptr<const std::vector<ReplayLength>> replay;
  // Trace replay (--trace, workload/trace.h): request id i >= trace_first_id sends entry
  // (i - trace_first_id) % entries: trace_prompt.h's prompt of its input length (its hash
  // blocks first) and max_tokens its output length (at least 1). A warm-up request (id below
  // trace_first_id) takes entry id's lengths with a prompt of its own (no hash blocks: it warms
  // no prefix the trace shares). Excludes the other sources; echoed as summary.json `trace`.
  std::shared_ptr<const Trace> trace;
  uint64_t trace_first_id = 0;  // the first measured request's id (--warmup)
};

class PromptSource {
 public:
  // Loads the tokenizer, dataset or prompt file the config names. Throws sb::Error (usage)
  // naming the flag and the fix: unreadable or empty files, an unknown scenario or format,
  // a dataset without a usable record (or, with strict, any malformed one), conflicting
  // sources. Malformed dataset records are otherwise skipped; warning() says how many.
  explicit PromptSource(const WorkloadConfig& config);
  // The same with a tokenizer already loaded (config.tokenizer is then ignored).
  PromptSource(const WorkloadConfig& config, std::shared_ptr<const tokenizer::Tokenizer> tok);

  // The request with this index; the same (seed, index) always gives the same item.
  //
  // Synthetic: "Request <index>: " and then seeded sentences, cut to the drawn length: in
  // characters (unit=chars), in tokens of the tokenizer, or, without one, to exactly
  // 4 characters per token (so the estimate is exact). The distinct per-index start keeps
  // servers' prefix caches from matching whole prompts.
  // Prompt file: line index % lines, taken literally (no unescaping).
  // Dataset: entry order[index % entries], order a permutation seeded by `seed`.
  // Shared prefix: prefix index % N, suffix (index / N) % M.
  WorkItem item(uint64_t index) const;

  const tokenizer::Tokenizer* tokenizer() const { return tokenizer_.get(); }
  // "tokenizer" or "estimate": how item().input_tokens were counted.
  const char* input_tokens_source() const { return tokenizer_ ? "tokenizer" : "estimate"; }
  // Non-empty when dataset records were skipped: how many and the first one's line and fault.
  const std::string& warning() const { return warning_; }
  size_t dataset_size() const { return dataset_.size(); }

 private:
  int64_t count_tokens(const std::string& text) const;
  std::string text_of_length(uint64_t stream, uint64_t index, std::string head, int64_t length,
                             LengthUnit unit) const;
  void load_dataset();

  WorkloadConfig config_;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer_;
  std::vector<std::string> file_prompts_;
  std::vector<RequestClass> classes_;  // synthetic: the scenario's classes, or one "default"
  Scenario scenario_;
  std::vector<WorkItem> dataset_;  // max_tokens 0: drawn from the output length
  std::vector<uint32_t> order_;    // dataset order
  std::optional<SharedPrefixSpec> shared_prefix_;
  std::string warning_;
};

}  // namespace sb::workload
