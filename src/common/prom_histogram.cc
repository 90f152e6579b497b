#include "common/prom_histogram.h"

#include <iterator>

#include <fmt/format.h>

namespace sb {

void append_prom_histogram(std::string& out, std::string_view name, std::string_view labels,
                           std::span<const double> bounds, std::span<const uint64_t> counts,
                           double sum) {
  auto it = std::back_inserter(out);
  const std::string_view sep = labels.empty() ? "" : ",";
  const auto count_at = [&](size_t i) { return i < counts.size() ? counts[i] : 0; };
  uint64_t cum = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cum += count_at(i);
    fmt::format_to(it, "{}_bucket{{{}{}le=\"{}\"}} {}\n", name, labels, sep, bounds[i], cum);
  }
  cum += count_at(bounds.size());
  fmt::format_to(it, "{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name, labels, sep, cum);
  const std::string braced = labels.empty() ? "" : fmt::format("{{{}}}", labels);
  fmt::format_to(it, "{}_sum{} {}\n{}_count{} {}\n", name, braced, sum, name, braced, cum);
}

}  // namespace sb
