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
  // `name_bucket{labels,le="` once; per bucket only its bound and count are formatted.
  const std::string head = fmt::format("{}_bucket{{{}{}le=\"", name, labels, sep);
  uint64_t cum = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cum += count_at(i);
    out += head;
    fmt::format_to(it, "{}", bounds[i]);
    out += "\"} ";
    const fmt::format_int count(cum);
    out.append(count.data(), count.size());
    out += '\n';
  }
  cum += count_at(bounds.size());
  out += head;
  out += "+Inf\"} ";
  const fmt::format_int count(cum);
  out.append(count.data(), count.size());
  out += '\n';
  const std::string braced = labels.empty() ? "" : fmt::format("{{{}}}", labels);
  fmt::format_to(it, "{}_sum{} {}\n{}_count{} {}\n", name, braced, sum, name, braced, cum);
}

}  // namespace sb
