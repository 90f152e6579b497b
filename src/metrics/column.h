#pragma once
// The samples of one metric, gathered one request at a time by the run's accumulators
// (run_accumulator.h) without holding the requests.
//
// Column<T>: values in the order they were pushed, in chunks of 64 Ki values, so that a 10 M
// request run never reallocates (no doubling: the memory is the values plus at most one
// chunk) and take() hands them over as one vector while freeing the chunks it has copied.
//
// TaggedColumn<T>: a Column with each value's group (a request class): gather(g) copies the
// values of one group, in push order. While only group 0 has been pushed the tags are not
// stored at all; the first value of another group writes the zeros that were implied.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sb::metrics {

template <typename T>
class Column {
 public:
  static constexpr size_t kChunk = size_t{1} << 16;

  void push(T v) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
    chunks_.back()[size_ % kChunk] = v;
    ++size_;
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }

  // Calls f(value) for every value, in push order.
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

  // Every value in push order, as a vector of U; the column is left empty.
  template <typename U = T>
  std::vector<U> take() {
    std::vector<U> out;
    out.reserve(size_);
    for (size_t c = 0; c < chunks_.size(); ++c) {
      const size_t n = std::min(kChunk, size_ - c * kChunk);
      out.insert(out.end(), chunks_[c].get(), chunks_[c].get() + n);
      chunks_[c].reset();
    }
    chunks_.clear();
    size_ = 0;
    return out;
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

template <typename T>
class TaggedColumn {
 public:
  void push(T v, uint16_t group) {
    if (group != 0 && tags_.empty())
      for (size_t i = 0; i < values_.size(); ++i) tags_.push(0);
    if (group != 0 || !tags_.empty()) tags_.push(group);
    values_.push(v);
  }
  size_t size() const { return values_.size(); }

  // The values of `group`, in push order, as a vector of U.
  template <typename U = T>
  std::vector<U> gather(uint16_t group) const {
    std::vector<U> out;
    if (tags_.empty()) {
      if (group == 0) values_.for_each([&](T v) { out.push_back(v); });
      return out;
    }
    for (size_t i = 0; i < values_.size(); ++i)
      if (tags_[i] == group) out.push_back(values_[i]);
    return out;
  }
  // Every value, in push order; the column is left empty.
  template <typename U = T>
  std::vector<U> take() {
    tags_ = {};
    return values_.template take<U>();
  }

 private:
  Column<T> values_;
  Column<uint16_t> tags_;  // empty: every value is group 0
};

}  // namespace sb::metrics
