#include "workload/shared_prefix.h"

#include <charconv>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::workload {
namespace {

int64_t parse_positive(std::string_view v, std::string_view text) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 1 || n > kMaxLengthTokens)
    throw usage_error(
        fmt::format("--shared-prefix '{}': '{}' is not a whole number from 1 to {}; expected "
                    "prefixes=N,suffixes=M[,prefix=T][,suffix=T][,unit=chars]",
                    text, v, kMaxLengthTokens));
  return n;
}

}  // namespace

SharedPrefixSpec parse_shared_prefix(std::string_view text) {
  SharedPrefixSpec s;
  bool have_prefixes = false, have_suffixes = false;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? "" : item.substr(eq + 1);
    if (key == "prefixes") {
      s.prefixes = parse_positive(value, text);
      have_prefixes = true;
    } else if (key == "suffixes") {
      s.suffixes = parse_positive(value, text);
      have_suffixes = true;
    } else if (key == "prefix") {
      s.prefix_length = parse_positive(value, text);
    } else if (key == "suffix") {
      s.suffix_length = parse_positive(value, text);
    } else if (key == "unit" && (value == "tokens" || value == "chars")) {
      s.unit = value == "chars" ? LengthUnit::chars : LengthUnit::tokens;
    } else {
      throw usage_error(
          fmt::format("--shared-prefix '{}': unknown item '{}'; expected "
                      "prefixes=N,suffixes=M[,prefix=T][,suffix=T][,unit=chars]",
                      text, item));
    }
  }
  if (!have_prefixes || !have_suffixes)
    throw usage_error(
        fmt::format("--shared-prefix '{}': needs prefixes=N and suffixes=M, e.g. "
                    "prefixes=4,suffixes=16,prefix=512,suffix=32",
                    text));
  return s;
}

}  // namespace sb::workload
