#include "metrics/float_samples.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "metrics/order_stats.h"

namespace sb::metrics {

namespace {

constexpr size_t kBlockValues = size_t{1} << 18;  // 1 MiB of floats

// A temporary file nobody else can open: created under $TMPDIR (else /tmp), then unlinked.
int open_spill_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = fmt::format("{}/servebench-samples-XXXXXX", dir && *dir ? dir : "/tmp");
  const int fd = ::mkstemp(path.data());
  if (fd >= 0) ::unlink(path.c_str());
  return fd;
}

bool write_all(int fd, const float* data, size_t count) {
  const auto* p = reinterpret_cast<const char*>(data);
  size_t left = count * sizeof(float);
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

// The floats' order as unsigned integers: negative values reversed below the positive ones.
uint32_t key_of(float f) {
  const auto b = std::bit_cast<uint32_t>(f);
  return (b & 0x8000'0000u) ? ~b : (b | 0x8000'0000u);
}
float float_of(uint32_t key) {
  return std::bit_cast<float>((key & 0x8000'0000u) ? (key & 0x7fff'ffffu) : ~key);
}

}  // namespace

FloatSamples::FloatSamples(size_t memory_values) : memory_values_(memory_values) {}

FloatSamples::~FloatSamples() {
  if (fd_ >= 0) ::close(fd_);
}

FloatSamples::FloatSamples(FloatSamples&& o) noexcept
    : memory_values_(o.memory_values_),
      memory_(std::move(o.memory_)),
      fd_(std::exchange(o.fd_, -1)),
      in_file_(std::exchange(o.in_file_, 0)),
      pending_(std::move(o.pending_)),
      failed_(o.failed_),
      overflow_(std::move(o.overflow_)) {}

void FloatSamples::spill(float v) {
  if (failed_) {
    overflow_.push(v);
    return;
  }
  pending_.push_back(v);
  if (pending_.size() >= kBlockValues) flush();
}

void FloatSamples::flush() {
  if (pending_.empty()) return;
  if (fd_ < 0) fd_ = open_spill_file();
  if (fd_ >= 0 && write_all(fd_, pending_.data(), pending_.size())) {
    in_file_ += pending_.size();
  } else {
    // No file, or no room: these values and every later one stay in memory. A partly written
    // block is not counted (in_file_ unchanged), so the file's readable values stay whole.
    failed_ = true;
    for (float v : pending_) overflow_.push(v);
  }
  pending_.clear();
}

void FloatSamples::for_each_block(const std::function<void(std::span<const float>)>& f) const {
  std::vector<float> block;
  block.reserve(kBlockValues);
  const auto column = [&](const Column<float>& c) {
    c.for_each([&](float v) {
      block.push_back(v);
      if (block.size() == kBlockValues) {
        f(block);
        block.clear();
      }
    });
    if (!block.empty()) f(block);
    block.clear();
  };
  column(memory_);
  for (size_t done = 0; done < in_file_;) {
    const size_t want = std::min(kBlockValues, in_file_ - done);
    block.resize(want);
    const auto offset = static_cast<off_t>(done * sizeof(float));
    const ssize_t got = ::pread(fd_, block.data(), want * sizeof(float), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || static_cast<size_t>(got) % sizeof(float) != 0)
      throw Error(fmt::format("reading back spilled samples: {}",
                              got < 0 ? std::strerror(errno) : "short read"));
    block.resize(static_cast<size_t>(got) / sizeof(float));
    f(block);
    done += block.size();
  }
  block.clear();
  if (!pending_.empty()) f(pending_);
  column(overflow_);
}

Distribution distribution_of_samples(std::span<const FloatSamples* const> parts) {
  size_t n = 0;
  bool spilled = false;
  for (const FloatSamples* p : parts) {
    n += p->size();
    spilled = spilled || p->spilled();
  }
  const auto for_each_block = [&](const std::function<void(std::span<const float>)>& f) {
    for (const FloatSamples* p : parts) p->for_each_block(f);
  };
  if (!spilled) {
    std::vector<float> all;
    all.reserve(n);
    for_each_block([&](std::span<const float> b) { all.insert(all.end(), b.begin(), b.end()); });
    return distribution_of_floats(std::move(all));
  }

  // Pass 1: the sum, and how many values share each high half of the key.
  std::vector<int64_t> high(size_t{1} << 16, 0);
  long double sum = 0;
  for_each_block([&](std::span<const float> b) {
    for (float v : b) {
      sum += static_cast<double>(v);
      ++high[key_of(v) >> 16];
    }
  });
  const long double mean = sum / static_cast<long double>(n);
  // The high half of each wanted rank, and its rank among the values sharing it.
  const std::vector<size_t> ranks = order_ranks(n);
  std::vector<std::pair<uint32_t, int64_t>> where(ranks.size());
  {
    size_t k = 0;
    int64_t below = 0;
    for (uint32_t h = 0; h < high.size() && k < ranks.size(); ++h) {
      while (k < ranks.size() && static_cast<int64_t>(ranks[k]) < below + high[h]) {
        where[k] = {h, static_cast<int64_t>(ranks[k]) - below};
        ++k;
      }
      below += high[h];
    }
  }
  // Pass 2: the squared deviations, and the low halves within the wanted high halves.
  std::map<uint32_t, std::vector<int64_t>> low;
  for (const auto& [h, rank_in] : where) low.try_emplace(h, size_t{1} << 16, 0);
  long double sq = 0;
  for_each_block([&](std::span<const float> b) {
    for (float v : b) {
      const double x = v;
      sq += (x - mean) * (x - mean);
      const uint32_t key = key_of(v);
      if (auto it = low.find(key >> 16); it != low.end()) ++it->second[key & 0xffffu];
    }
  });
  std::vector<double> values;
  values.reserve(ranks.size());
  for (const auto& [h, rank_in] : where) {
    const std::vector<int64_t>& counts = low.at(h);
    int64_t below = 0;
    uint32_t l = 0;
    while (below + counts[l] <= rank_in) below += counts[l++];
    values.push_back(float_of((h << 16) | l));
  }
  return distribution_from(n, static_cast<double>(mean),
                           static_cast<double>(std::sqrt(sq / static_cast<long double>(n))),
                           values);
}

}  // namespace sb::metrics
