#pragma once
// Pure parsers for the values users type on the command line and in plans:
// durations ("30s", "200ms", "1.5m"), counts ("2k", "1.5M") and rates ("2.5").
// Each returns the value in the unit its name carries, or throws
// sb::usage_error naming the value (and `field`, the flag or key, when given)
// and the accepted forms. Surrounding whitespace, signs and non-finite numbers
// are rejected; so are negative values.
#include <cstdint>
#include <string_view>

namespace sb {

// Duration in seconds. Units: ns, us, ms, s, m (minutes), h; a bare number is
// seconds. "30s" -> 30, "200ms" -> 0.2, "1.5m" -> 90, "1h" -> 3600, "10" -> 10.
double parse_duration_s(std::string_view text, std::string_view field = {});

// Duration in milliseconds, for flags given in ms (--goodput ttft:200,
// --bucket-interval 1000). Same units; a bare number is milliseconds.
// "200" -> 200, "1.5s" -> 1500, "500us" -> 0.5.
double parse_duration_ms(std::string_view text, std::string_view field = {});

// Non-negative whole count with an optional decimal multiplier k/K (1e3),
// M (1e6) or G (1e9): "100" -> 100, "2k" -> 2000, "1.5M" -> 1500000.
// A result that is not a whole number ("1.0005k") is an error.
int64_t parse_count(std::string_view text, std::string_view field = {});

// Exact unsigned 64-bit whole number, decimal digits only: "0" .. "18446744073709551615".
// Every digit is kept (no trip through a double, unlike parse_count), so seeds above 2^53
// survive; no multipliers, signs or exponents.
uint64_t parse_uint64(std::string_view text, std::string_view field = {});

// Rate in events per second: a positive number, optionally followed by "/s":
// "10" -> 10, "2.5" -> 2.5, "4/s" -> 4.
double parse_rate_per_s(std::string_view text, std::string_view field = {});

}  // namespace sb
