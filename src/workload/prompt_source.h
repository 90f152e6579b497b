#pragma once
// Prompts to send, one per request index: synthetic English-like text of a target
// length, or the lines of a prompt file. Deterministic per (seed, index), so a run
// can be repeated exactly, and a const PromptSource may be shared by all workers.
#include <cstdint>
#include <string>
#include <vector>

namespace sb::workload {

struct WorkItem {
  std::string prompt;
  std::string messages_json;  // a JSON array of chat messages sent as-is; empty: use prompt
  int64_t max_tokens = 0;     // output tokens to request
  int64_t input_tokens = 0;   // estimated (token_estimate.h) until a tokenizer is configured
  std::string request_class = "default";
  std::string reference;  // the expected answer (dataset `reference`), for quality scoring
};

struct WorkloadConfig {
  int64_t input_tokens = 256;   // synthetic prompt length (estimated tokens); 1 .. 10,000,000
  int64_t output_tokens = 128;  // max_tokens of every item
  std::string prompt_file;      // one prompt per line; empty: synthetic prompts
  uint64_t seed = 0;
  std::string scenario;  // named preset: chat | long | mixed; empty = none (workload issue 4)
};

class PromptSource {
 public:
  // Reads prompt_file when given. Throws sb::usage_error naming the path when it cannot
  // be read or holds no prompt, and naming the field for an input_tokens out of range.
  explicit PromptSource(const WorkloadConfig& config);

  // The request with this index; the same (seed, index) always gives the same item.
  //
  // Synthetic: "Request <index>: " and then seeded sentences from a built-in word
  // list, cut to exactly input_tokens * 4 characters (so the estimate is exactly
  // input_tokens). The distinct per-index start keeps servers' prefix caches from
  // matching whole prompts. Below ~6 tokens the cut falls inside that start.
  // Prompt file: line index % lines, taken literally (no unescaping).
  WorkItem item(uint64_t index) const;

 private:
  WorkloadConfig config_;
  std::vector<std::string> file_prompts_;
};

}  // namespace sb::workload
