#include "metrics/goodput.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::metrics {

namespace {

constexpr std::string_view kFix =
    "expected METRIC:MS with METRIC one of ttft, tpot, e2e and MS a positive number of "
    "milliseconds, e.g. --goodput ttft:200";

}  // namespace

std::optional<std::string> parse_goodput(std::string_view value, Slo& slo) {
  const size_t colon = value.find(':');
  if (colon == std::string_view::npos)
    return fmt::format("--goodput '{}': missing ':'; {}", value, kFix);
  const std::string_view name = value.substr(0, colon);
  const std::string number(value.substr(colon + 1));

  std::optional<double>* target = nullptr;
  if (name == "ttft") {
    target = &slo.ttft_ms;
  } else if (name == "tpot") {
    target = &slo.tpot_ms;
  } else if (name == "e2e" || name == "e2el") {
    target = &slo.e2e_ms;
  } else {
    return fmt::format("--goodput '{}': unknown metric '{}'; {}", value, name, kFix);
  }

  char* end = nullptr;
  const double ms = number.empty() ? 0.0 : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(ms) || ms <= 0)
    return fmt::format("--goodput '{}': '{}' is not a positive number of milliseconds; {}", value,
                       number, kFix);
  if (target->has_value())
    return fmt::format("--goodput '{}': {} is given twice; give each metric once", value, name);
  *target = ms;
  return std::nullopt;
}

Slo parse_goodput_flags(const std::vector<std::string>& values) {
  Slo slo;
  for (const auto& v : values)
    if (auto err = parse_goodput(v, slo)) throw usage_error(*err);
  return slo;
}

bool meets_slo(const RequestRecord& r, const Slo& slo) {
  if (!r.ok()) return false;
  if (slo.ttft_ms) {
    const auto v = r.ttft_ms();
    if (!v || *v > *slo.ttft_ms) return false;
  }
  if (slo.tpot_ms && r.output_tokens > 1) {  // <= 1 token: tpot counts as 0 (vLLM)
    const auto v = r.tpot_ms();
    if (!v || *v > *slo.tpot_ms) return false;
  }
  if (slo.e2e_ms) {
    const auto v = r.e2e_ms();
    if (!v || *v > *slo.e2e_ms) return false;
  }
  return true;
}

}  // namespace sb::metrics
