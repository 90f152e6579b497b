#include "protocol/timing_headers.h"

#include <charconv>
#include <cmath>

namespace sb::protocol {
namespace {

// A non-negative decimal ("12", "12.5", surrounding blanks allowed); -1 otherwise.
double parse_ms(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  if (v.empty()) return -1;
  double x = -1;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(x) || x < 0) return -1;
  return x;
}

}  // namespace

std::optional<ServerTimes> tgi_timing_headers(const HeaderLookup& header) {
  ServerTimes t;
  t.queue_ms = parse_ms(header("x-queue-time"));
  t.inference_ms = parse_ms(header("x-inference-time"));
  t.total_ms = parse_ms(header("x-total-time"));
  if (!t.any()) return std::nullopt;
  t.source = ServerTimingSource::tgi_headers;
  return t;
}

}  // namespace sb::protocol
