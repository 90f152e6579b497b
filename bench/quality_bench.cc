// Quality scoring throughput on one core: score_request() (13a tokenization, sentence BLEU
// statistics, chrF statistics, ROUGE-L, exact match) for 200-token outputs against a
// 200-token reference that shares most of its words, as the worker runs it when a request
// with a reference finishes. Reported as requests/s (items_per_second) and bytes/s; and
// the same for CJK text (zh tokenizer, ~200 characters).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "quality/request_quality.h"

namespace {

std::string words(int n, uint64_t seed) {
  static const char* kWords[] = {"the",     "model", "serves",  "tokens", "quickly", "under",
                                 "load",    "while", "latency", "stays",  "low",     "and",
                                 "batches", "grow",  "with",    "demand", "of",      "users,"};
  std::string s;
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if (i) s += ' ';
    s += kWords[x % 18];
    if (i % 17 == 16) s += '.';
  }
  return s;
}

void BM_ScoreRequest200Tokens(benchmark::State& state) {
  const std::string reference = words(200, 1);
  std::string hypothesis = reference;
  // About one word in ten differs.
  for (size_t i = 7; i + 5 < hypothesis.size(); i += 60) hypothesis.replace(i, 3, "xyz");
  for (auto _ : state) benchmark::DoNotOptimize(sb::quality::score_request(hypothesis, reference));
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() *
                          static_cast<int64_t>(hypothesis.size() + reference.size()));
}
BENCHMARK(BM_ScoreRequest200Tokens);

void BM_ScoreRequestCjk(benchmark::State& state) {
  std::string reference, hypothesis;
  const char* chars[] = {"我", "喜", "欢", "猫", "狗", "的", "是", "在", "了", "，", "。"};
  for (int i = 0; i < 200; ++i) {
    reference += chars[(i * 7) % 11];
    hypothesis += chars[(i * 7 + (i % 10 == 0)) % 11];
  }
  for (auto _ : state) benchmark::DoNotOptimize(sb::quality::score_request(hypothesis, reference));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScoreRequestCjk);

void BM_CorpusAccumulate(benchmark::State& state) {
  const auto q = sb::quality::score_request(words(200, 2), words(200, 3));
  sb::quality::QualityTotals totals;
  for (auto _ : state) {
    totals.add(q);
    benchmark::DoNotOptimize(totals);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CorpusAccumulate);

}  // namespace

BENCHMARK_MAIN();
