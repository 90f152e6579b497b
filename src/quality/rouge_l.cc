#include "quality/rouge_l.h"

namespace sb::quality {

int64_t lcs_length(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const auto& longer = a.size() >= b.size() ? a : b;
  const auto& shorter = a.size() >= b.size() ? b : a;
  std::vector<int64_t> row(shorter.size() + 1, 0);
  for (const auto& x : longer) {
    int64_t diag = 0;  // row[j - 1] of the previous pass
    for (size_t j = 1; j <= shorter.size(); ++j) {
      const int64_t up = row[j];
      row[j] = x == shorter[j - 1] ? diag + 1 : std::max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row.back();
}

RougeL rouge_l(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  RougeL r;
  if (hyp.empty() || ref.empty()) return r;
  r.lcs = lcs_length(hyp, ref);
  if (r.lcs == 0) return r;
  r.precision = static_cast<double>(r.lcs) / static_cast<double>(hyp.size());
  r.recall = static_cast<double>(r.lcs) / static_cast<double>(ref.size());
  r.f1 = 2 * r.precision * r.recall / (r.precision + r.recall);
  return r;
}

}  // namespace sb::quality
