#include "load/priority_mix.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/error.h"
#include "common/splitmix64.h"

namespace sb::load {
namespace {

// Keeps the class draws apart from every other use of the run's seed.
constexpr uint64_t kPriorityStream = 0x5052494f52495459ULL;  // "PRIORITY"

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw usage_error(fmt::format(
      "--priority-mix '{}': {} (expected CLASS:SHARE,..., most urgent first, shares summing "
      "to 1, e.g. high:0.2,normal:0.8)",
      text, why));
}

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      return false;
  return true;
}

// A decimal share: digits with at most one '.', nothing else (no sign, exponent, inf or nan).
bool parse_share(std::string_view s, double& out) {
  if (s.empty() || s.size() > 32) return false;
  int dots = 0, digits = 0;
  for (char c : s) {
    if (c == '.')
      ++dots;
    else if (c >= '0' && c <= '9')
      ++digits;
    else
      return false;
  }
  if (dots > 1 || digits == 0) return false;
  const std::string copy(s);
  out = std::strtod(copy.c_str(), nullptr);
  return std::isfinite(out);
}

int rank_of(std::string_view name) {
  if (name == "high") return 0;
  if (name == "normal") return 1;
  if (name == "low") return 2;
  return -1;
}

}  // namespace

PriorityMix parse_priority_mix(std::string_view text) {
  PriorityMix mix;
  if (text.empty()) bad(text, "empty");
  double sum = 0;
  int last_rank = -1;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string_view part = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t colon = part.find(':');
    if (colon == std::string_view::npos) bad(text, fmt::format("'{}' has no ':SHARE'", part));
    const std::string_view name = part.substr(0, colon);
    const std::string_view share_text = part.substr(colon + 1);
    if (!valid_name(name))
      bad(text, fmt::format("class name '{}' must be letters, digits, '_' or '-'", name));
    for (const auto& c : mix.classes)
      if (c.name == name) bad(text, fmt::format("class '{}' is given twice", name));
    double share = 0;
    if (!parse_share(share_text, share))
      bad(text, fmt::format("share '{}' of class '{}' is not a number", share_text, name));
    if (!(share > 0) || share > 1)
      bad(text, fmt::format("share {} of class '{}' must be in (0, 1]", share_text, name));
    if (const int r = rank_of(name); r >= 0) {
      if (r < last_rank)
        bad(text,
            fmt::format("list the classes most urgent first: '{}' after a less urgent one", name));
      last_rank = r;
    }
    mix.classes.push_back({std::string(name), share, static_cast<int64_t>(mix.classes.size())});
    sum += share;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (std::fabs(sum - 1.0) > 1e-6) bad(text, fmt::format("the shares sum to {:.7g}, not 1", sum));
  return mix;
}

size_t priority_class_of(const PriorityMix& mix, uint64_t seed, uint64_t id) {
  const uint64_t h = splitmix64(seed ^ splitmix64(id ^ kPriorityStream));
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  double edge = 0;
  for (size_t i = 0; i + 1 < mix.classes.size(); ++i) {
    edge += mix.classes[i].share;
    if (u < edge) return i;
  }
  return mix.classes.size() - 1;
}

}  // namespace sb::load
