#include "quality/chrf.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "quality/utf8.h"

namespace sb::quality {
namespace {

std::u32string without_spaces(std::string_view text) {
  std::u32string s = decode_utf8(text);
  s.erase(std::remove_if(s.begin(), s.end(), is_space), s.end());
  return s;
}

using Counts = std::unordered_map<std::u32string_view, int64_t>;

Counts ngrams(const std::u32string& s, size_t n) {
  Counts c;
  if (s.size() >= n) {
    c.reserve(s.size() - n + 1);
    for (size_t i = 0; i + n <= s.size(); ++i) ++c[std::u32string_view(s).substr(i, n)];
  }
  return c;
}

ChrfStats stats_of(const std::u32string& hyp, const std::u32string& ref) {
  ChrfStats s;
  for (int n = 1; n <= kChrfOrder; ++n) {
    const size_t un = static_cast<size_t>(n);
    const auto h = ngrams(hyp, un);
    const auto r = ngrams(ref, un);
    s.hyp[n - 1] = hyp.size() >= un ? static_cast<int64_t>(hyp.size() - un + 1) : 0;
    s.ref[n - 1] = ref.size() >= un ? static_cast<int64_t>(ref.size() - un + 1) : 0;
    int64_t m = 0;
    for (const auto& [g, c] : h)
      if (auto it = r.find(g); it != r.end()) m += std::min(c, it->second);
    s.match[n - 1] = m;
  }
  return s;
}

}  // namespace

ChrfStats& ChrfStats::operator+=(const ChrfStats& o) {
  for (int n = 0; n < kChrfOrder; ++n) {
    hyp[n] += o.hyp[n];
    ref[n] += o.ref[n];
    match[n] += o.match[n];
  }
  return *this;
}

ChrfStats chrf_stats(std::string_view hypothesis, std::string_view reference) {
  return stats_of(without_spaces(hypothesis), without_spaces(reference));
}

ChrfStats chrf_stats(std::string_view hypothesis, const std::vector<std::string_view>& references) {
  const std::u32string hyp = without_spaces(hypothesis);
  ChrfStats best;
  double best_score = -1;
  for (std::string_view ref : references) {
    ChrfStats s = stats_of(hyp, without_spaces(ref));
    const double f = chrf_score(s);
    if (f > best_score) {
      best_score = f;
      best = s;
    }
  }
  if (references.empty()) best = stats_of(hyp, {});
  return best;
}

double chrf_score(const ChrfStats& s, double beta) {
  constexpr double kEps = 1e-16;
  double avg_prec = 0, avg_rec = 0;
  int effective = 0;
  for (int n = 0; n < kChrfOrder; ++n) {
    const auto h = static_cast<double>(s.hyp[n]);
    const auto r = static_cast<double>(s.ref[n]);
    const auto m = static_cast<double>(s.match[n]);
    avg_prec += h > 0 ? m / h : kEps;
    avg_rec += r > 0 ? m / r : kEps;
    if (h > 0 && r > 0) ++effective;
  }
  if (effective == 0) return 0.0;
  avg_prec /= effective;
  avg_rec /= effective;
  if (avg_prec + avg_rec == 0) return 0.0;
  const double b2 = beta * beta;
  return 100.0 * (1 + b2) * avg_prec * avg_rec / (b2 * avg_prec + avg_rec);
}

}  // namespace sb::quality
