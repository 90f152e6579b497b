#include "sim/prefix_cache.h"

#include <algorithm>

#include "common/splitmix64.h"

namespace sb::sim {

void PrefixCache::touch(uint64_t h) {
  auto it = where_.find(h);
  if (it == where_.end()) return;
  lru_.splice(lru_.begin(), lru_, it->second);
}

int64_t PrefixCache::match(const std::vector<uint64_t>& blocks) {
  int64_t n = 0;
  for (uint64_t h : blocks) {
    if (where_.find(h) == where_.end()) break;
    ++n;
  }
  // Touch from the last matched to the first, so a prefix's first block is the most recent:
  // eviction then takes a prefix's tail before its head, as vLLM's free-block queue does.
  for (int64_t i = n - 1; i >= 0; --i) touch(blocks[static_cast<size_t>(i)]);
  return n;
}

void PrefixCache::insert(const std::vector<uint64_t>& blocks, int64_t n) {
  if (capacity_ <= 0) return;
  n = std::min<int64_t>(n, static_cast<int64_t>(blocks.size()));
  for (int64_t i = n - 1; i >= 0; --i) {
    const uint64_t h = blocks[static_cast<size_t>(i)];
    if (where_.count(h)) {
      touch(h);
      continue;
    }
    lru_.push_front(h);
    where_[h] = lru_.begin();
  }
  while (static_cast<int64_t>(lru_.size()) > capacity_) {
    where_.erase(lru_.back());
    lru_.pop_back();
  }
}

std::vector<uint64_t> block_hashes(std::string_view text, int64_t block_bytes, int64_t max_blocks) {
  std::vector<uint64_t> out;
  if (block_bytes <= 0) return out;
  const int64_t full = static_cast<int64_t>(text.size()) / block_bytes;
  const int64_t n = std::min(full, max_blocks);
  out.reserve(static_cast<size_t>(std::max<int64_t>(n, 0)));
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int64_t b = 0; b < n; ++b) {
    // FNV-1a over the block's bytes, chained with the previous block's hash.
    uint64_t f = 1469598103934665603ULL;
    for (int64_t i = b * block_bytes; i < (b + 1) * block_bytes; ++i) {
      f ^= static_cast<unsigned char>(text[static_cast<size_t>(i)]);
      f *= 1099511628211ULL;
    }
    h = splitmix64(h ^ f);
    out.push_back(h);
  }
  return out;
}

std::vector<uint64_t> prompt_prefix_blocks(const SimConfig& c, std::string_view text,
                                           int64_t prompt_tokens) {
  if (!c.sched.prefix_caching || c.sched.kv_block_tokens < 1) return {};
  return block_hashes(text, static_cast<int64_t>(c.sched.kv_block_tokens) * c.text.chars_per_token,
                      prompt_tokens / c.sched.kv_block_tokens);
}

}  // namespace sb::sim
