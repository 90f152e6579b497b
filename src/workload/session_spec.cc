#include "workload/session_spec.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"

namespace sb::workload {
namespace {

constexpr const char* kThinkSyntax =
    "expected a duration (2s, 500ms, 0), fixed:D, exp:D (exponential, mean D) or uniform:A-B";

[[noreturn]] void fail(std::string_view text, std::string_view why) {
  throw usage_error(fmt::format("--think-time '{}': {}; {}", text, why, kThinkSyntax));
}

Nanos duration_of(std::string_view v, std::string_view text) {
  if (v.empty()) fail(text, "a duration is missing");
  try {
    return from_s(parse_duration_s(v, "--think-time"));
  } catch (const Error&) {
    fail(text, fmt::format("'{}' is not a duration", v));
  }
}

double seconds(Nanos d) {
  return to_s(d);
}

}  // namespace

Nanos ThinkTime::sample(Rng& rng) const {
  switch (kind) {
    case Kind::fixed:
      return min;
    case Kind::exp: {
      const double u = rng.uniform();  // [0, 1)
      return from_s(-seconds(mean) * std::log1p(-u));
    }
    case Kind::uniform:
      return min + from_s(seconds(max - min) * rng.uniform());
  }
  return min;
}

std::string ThinkTime::to_string() const {
  switch (kind) {
    case Kind::fixed:
      return fmt::format("fixed:{:g}s", seconds(min));
    case Kind::exp:
      return fmt::format("exp:{:g}s", seconds(mean));
    case Kind::uniform:
      return fmt::format("uniform:{:g}s-{:g}s", seconds(min), seconds(max));
  }
  return {};
}

ThinkTime parse_think_time(std::string_view text) {
  ThinkTime t;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    t.min = t.max = duration_of(text, text);
    return t;
  }
  const std::string_view kind = text.substr(0, colon);
  const std::string_view rest = text.substr(colon + 1);
  if (kind == "fixed") {
    t.min = t.max = duration_of(rest, text);
  } else if (kind == "exp") {
    t.kind = ThinkTime::Kind::exp;
    t.mean = duration_of(rest, text);
  } else if (kind == "uniform") {
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos) fail(text, "uniform needs A-B, e.g. uniform:1s-3s");
    t.kind = ThinkTime::Kind::uniform;
    t.min = duration_of(rest.substr(0, dash), text);
    t.max = duration_of(rest.substr(dash + 1), text);
    if (t.max < t.min) fail(text, "the upper bound is below the lower one");
  } else {
    fail(text, fmt::format("unknown kind '{}'", kind));
  }
  return t;
}

LengthSpec parse_turns(std::string_view text) {
  LengthSpec s = parse_length_spec(text, "--turns");
  if (s.unit == LengthUnit::chars)
    throw usage_error("--turns: counts turns; unit=chars is refused");
  const int64_t most = s.kind == LengthSpec::Kind::empirical
                           ? *std::max_element(s.values.begin(), s.values.end())
                           : s.max;
  if (most > kMaxTurns)
    throw usage_error(fmt::format("--turns '{}': at most {} turns a session", text, kMaxTurns));
  return s;
}

int64_t SessionSpec::turns_of(uint64_t seed, uint64_t session) const {
  Rng rng(seed, session, /*stream=*/0x5e55);
  return std::clamp<int64_t>(turns.sample(rng), 1, kMaxTurns);
}

Nanos SessionSpec::think_before(uint64_t seed, uint64_t session, int64_t turn) const {
  Rng rng(seed ^ splitmix64(static_cast<uint64_t>(turn)), session, /*stream=*/0x7417);
  return think.sample(rng);
}

}  // namespace sb::workload
