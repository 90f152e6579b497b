#pragma once
// The prefix cache of the simulated engine (vLLM automatic prefix caching, TGI 2.x): which
// prompt KV blocks are cached, by the chained hash of each full block (block i's hash stands
// for blocks 0..i, so equal hashes mean equal prefixes). Least recently used blocks are
// evicted first once the cache holds capacity_blocks. Pure, no clock.
#include <cstdint>
#include <list>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/config.h"

namespace sb::sim {

class PrefixCache {
 public:
  explicit PrefixCache(int64_t capacity_blocks) : capacity_(capacity_blocks) {}

  // How many leading blocks of `blocks` are cached; marks them most recently used.
  int64_t match(const std::vector<uint64_t>& blocks);
  // Caches the first `n` blocks of `blocks` (most recently used), evicting as needed.
  void insert(const std::vector<uint64_t>& blocks, int64_t n);
  int64_t size_blocks() const { return static_cast<int64_t>(lru_.size()); }

 private:
  void touch(uint64_t h);

  int64_t capacity_;
  std::list<uint64_t> lru_;  // front: most recently used
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where_;
};

// Chained 64-bit hashes of the full `block_bytes`-byte blocks of `text`, at most `max_blocks`
// of them (a prompt's leading bytes stand for its leading tokens: the simulator counts
// chars_per_token bytes a token, so a block of B tokens is B x chars_per_token bytes).
std::vector<uint64_t> block_hashes(std::string_view text, int64_t block_bytes, int64_t max_blocks);

// SchedRequest::prefix_blocks of a generation request whose prompt text is `text` (the prompt,
// or its chat messages' texts in order, each followed by "\n"): the hashes of its leading full
// blocks of kv_block_tokens x chars_per_token bytes, at most prompt_tokens / kv_block_tokens of
// them; empty when prefix caching is off. Equal prompt prefixes give equal leading blocks
// whatever else the requests' bodies hold. Filled by parse_generate (GenRequest::prefix_blocks),
// so the live simulator and `servebench predict` see the same hits.
std::vector<uint64_t> prompt_prefix_blocks(const SimConfig& c, std::string_view text,
                                           int64_t prompt_tokens);

}  // namespace sb::sim
