#include "common/units.h"

#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/error.h"

namespace sb {
namespace {

// The number at the start of `text` and the suffix after it.
struct Split {
  double number = 0;
  std::string_view suffix;
};

[[noreturn]] void fail(std::string_view field, std::string_view kind, std::string_view text,
                       std::string_view reason, std::string_view accepted) {
  std::string where = field.empty() ? std::string() : fmt::format("{}: ", field);
  throw usage_error(
      fmt::format("{}invalid {} \"{}\": {}; expected {}", where, kind, text, reason, accepted));
}

// Splits `text` into its leading number and the suffix after it; on failure returns false
// with `reason` set. Only a digit or '.' may start a number (no sign, no whitespace, no
// "inf"/"nan").
bool split_number(std::string_view text, Split& out, std::string_view& reason) {
  if (text.empty()) {
    reason = "empty value";
    return false;
  }
  if (text.front() == '-') {
    reason = "must not be negative";
    return false;
  }
  if (!(text.front() == '.' || (text.front() >= '0' && text.front() <= '9'))) {
    reason = "does not start with a number";
    return false;
  }
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out.number, std::chars_format::general);
  if (ec != std::errc() || !std::isfinite(out.number)) {
    reason = "not a finite number";
    return false;
  }
  out.suffix = text.substr(static_cast<size_t>(ptr - text.data()));
  return true;
}

constexpr std::string_view kDurationForms =
    "a number with an optional unit ns, us, ms, s, m (minutes) or h, e.g. \"30s\", \"200ms\", "
    "\"1.5m\", \"1h\", \"500us\"";

// Nanoseconds per unit (exact in a double); 0 for an unknown unit. No unit returns `bare_ns`.
double ns_per_unit(std::string_view unit, double bare_ns) {
  if (unit.empty()) return bare_ns;
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  if (unit == "m") return 60e9;
  if (unit == "h") return 3600e9;
  return 0;
}

// The duration in units of `result_ns` nanoseconds; a bare number is in units of `result_ns`.
double parse_duration(std::string_view text, std::string_view field, double result_ns,
                      std::string_view bare_name) {
  const std::string accepted = fmt::format("{}; a bare number means {}", kDurationForms, bare_name);
  Split s;
  std::string_view reason;
  if (!split_number(text, s, reason)) fail(field, "duration", text, reason, accepted);
  const double unit_ns = ns_per_unit(s.suffix, result_ns);
  if (unit_ns == 0) {
    fail(field, "duration", text, fmt::format("unknown unit \"{}\"", s.suffix), accepted);
  }
  // Unit sizes are exact integers of nanoseconds, so "200ms" is exactly 200 ms and the
  // nearest double to 0.2 s.
  const double value = unit_ns == result_ns ? s.number : s.number * unit_ns / result_ns;
  if (!std::isfinite(value)) fail(field, "duration", text, "too large", accepted);
  return value;
}

}  // namespace

double parse_duration_s(std::string_view text, std::string_view field) {
  return parse_duration(text, field, 1e9, "seconds");
}

double parse_duration_ms(std::string_view text, std::string_view field) {
  return parse_duration(text, field, 1e6, "milliseconds");
}

int64_t parse_count(std::string_view text, std::string_view field) {
  constexpr std::string_view accepted =
      "a non-negative whole number with an optional multiplier k (thousand), M (million) or G "
      "(billion), e.g. \"100\", \"2k\", \"1.5M\"";
  Split s;
  std::string_view reason;
  if (!split_number(text, s, reason)) fail(field, "count", text, reason, accepted);
  double multiplier = 0;
  if (s.suffix.empty()) {
    multiplier = 1;
  } else if (s.suffix == "k" || s.suffix == "K") {
    multiplier = 1e3;
  } else if (s.suffix == "M") {
    multiplier = 1e6;
  } else if (s.suffix == "G") {
    multiplier = 1e9;
  } else {
    fail(field, "count", text, fmt::format("unknown multiplier \"{}\"", s.suffix), accepted);
  }
  const double value = s.number * multiplier;
  // 2^63 is exactly representable; anything at or above it does not fit in int64_t.
  if (!(value < 9223372036854775808.0)) fail(field, "count", text, "too large", accepted);
  if (value != std::floor(value)) fail(field, "count", text, "not a whole number", accepted);
  return static_cast<int64_t>(value);
}

uint64_t parse_uint64(std::string_view text, std::string_view field) {
  constexpr std::string_view accepted = "a whole number from 0 to 18446744073709551615";
  if (text.empty()) fail(field, "number", text, "empty value", accepted);
  if (text.front() == '-') fail(field, "number", text, "must not be negative", accepted);
  for (char c : text)
    if (c < '0' || c > '9') fail(field, "number", text, "not a whole number", accepted);
  uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) fail(field, "number", text, "too large", accepted);
  if (ec != std::errc() || ptr != text.data() + text.size())
    fail(field, "number", text, "not a whole number", accepted);
  return value;
}

double parse_rate_per_s(std::string_view text, std::string_view field) {
  constexpr std::string_view accepted =
      "a positive number of requests per second, optionally followed by \"/s\", e.g. \"10\", "
      "\"2.5\"";
  Split s;
  std::string_view reason;
  if (!split_number(text, s, reason)) fail(field, "rate", text, reason, accepted);
  if (!s.suffix.empty() && s.suffix != "/s") {
    fail(field, "rate", text, fmt::format("unknown unit \"{}\"", s.suffix), accepted);
  }
  if (!(s.number > 0)) fail(field, "rate", text, "must be greater than zero", accepted);
  return s.number;
}

}  // namespace sb
