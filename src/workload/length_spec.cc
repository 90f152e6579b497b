#include "workload/length_spec.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.h"

namespace sb::workload {
namespace {

constexpr const char* kSyntax =
    "expected N, fixed:N, uniform:min=A,max=B, normal:mean=M,sd=S[,min=A,max=B] or "
    "empirical:V1,V2,... (optionally with ,unit=chars)";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(std::string_view flag, std::string_view text, std::string_view why) {
  throw usage_error(fmt::format("{} '{}': {}; {}", flag, text, why, kSyntax));
}

double parse_number(std::string_view v, std::string_view flag, std::string_view text) {
  v = trim(v);
  double d = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || !std::isfinite(d))
    fail(flag, text, fmt::format("'{}' is not a number", v));
  return d;
}

int64_t parse_length(std::string_view v, std::string_view flag, std::string_view text) {
  const double d = parse_number(v, flag, text);
  if (d != std::floor(d) || d < 1 || d > static_cast<double>(kMaxLengthTokens))
    fail(flag, text,
         fmt::format("length '{}' must be a whole number from 1 to {}", trim(v), kMaxLengthTokens));
  return static_cast<int64_t>(d);
}

}  // namespace

LengthSpec LengthSpec::fixed_tokens(int64_t n) {
  LengthSpec s;
  s.min = s.max = n;
  return s;
}

int64_t LengthSpec::sample(Rng& rng) const {
  switch (kind) {
    case Kind::fixed:
      return min;
    case Kind::uniform:
      return rng.between(min, max);
    case Kind::normal: {
      double x = mean;
      for (int i = 0; i < 64; ++i) {
        x = std::round(mean + sd * rng.normal());
        if (x >= static_cast<double>(min) && x <= static_cast<double>(max)) break;
      }
      return std::clamp(static_cast<int64_t>(x), min, max);
    }
    case Kind::empirical:
      return values[rng.next() % values.size()];
  }
  return min;
}

std::string LengthSpec::to_string() const {
  std::string s;
  switch (kind) {
    case Kind::fixed:
      s = fmt::format("fixed:{}", min);
      break;
    case Kind::uniform:
      s = fmt::format("uniform:min={},max={}", min, max);
      break;
    case Kind::normal:
      s = fmt::format("normal:mean={},sd={},min={},max={}", mean, sd, min, max);
      break;
    case Kind::empirical:
      s = fmt::format("empirical:{}", fmt::join(values, ","));
      break;
  }
  if (unit == LengthUnit::chars) s += ",unit=chars";
  return s;
}

LengthSpec parse_length_spec(std::string_view text, std::string_view flag) {
  LengthSpec spec;
  const std::string_view whole = trim(text);
  if (whole.empty()) fail(flag, text, "empty");
  const auto colon = whole.find(':');
  if (colon == std::string_view::npos) {  // a bare number: fixed
    spec.min = spec.max = parse_length(whole, flag, text);
    return spec;
  }
  const std::string_view kind = trim(whole.substr(0, colon));
  std::string_view rest = whole.substr(colon + 1);

  // Split the rest at commas into key=value pairs (or bare values for fixed/empirical).
  std::vector<std::pair<std::string_view, std::string_view>> keyed;
  std::vector<std::string_view> bare;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) fail(flag, text, "an empty item between commas");
    if (const auto eq = item.find('='); eq != std::string_view::npos) {
      const std::string_view key = trim(item.substr(0, eq));
      if (key == "unit") {
        const std::string_view u = trim(item.substr(eq + 1));
        if (u == "tokens")
          spec.unit = LengthUnit::tokens;
        else if (u == "chars" || u == "characters")
          spec.unit = LengthUnit::chars;
        else
          fail(flag, text, fmt::format("unit '{}' is not tokens or chars", u));
      } else {
        for (const auto& [k, v] : keyed)
          if (k == key) fail(flag, text, fmt::format("'{}' given twice", key));
        keyed.emplace_back(key, item.substr(eq + 1));
      }
    } else {
      bare.push_back(item);
    }
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  auto take = [&](std::string_view key) -> const std::string_view* {
    for (const auto& kv : keyed)
      if (kv.first == key) return &kv.second;
    return nullptr;
  };
  auto only_keys = [&](std::initializer_list<std::string_view> allowed) {
    if (!bare.empty()) fail(flag, text, fmt::format("'{}' needs a key (KEY=VALUE)", bare.front()));
    for (const auto& [k, v] : keyed)
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(flag, text, fmt::format("unknown key '{}' for {}", k, kind));
  };

  if (kind == "fixed") {
    if (bare.size() != 1 || !keyed.empty()) fail(flag, text, "fixed takes one length");
    spec.min = spec.max = parse_length(bare[0], flag, text);
  } else if (kind == "uniform") {
    only_keys({"min", "max"});
    const auto* lo = take("min");
    const auto* hi = take("max");
    if (!lo || !hi) fail(flag, text, "uniform needs min= and max=");
    spec.kind = LengthSpec::Kind::uniform;
    spec.min = parse_length(*lo, flag, text);
    spec.max = parse_length(*hi, flag, text);
    if (spec.min > spec.max) fail(flag, text, "min is above max");
  } else if (kind == "normal") {
    only_keys({"mean", "sd", "min", "max"});
    const auto* mean = take("mean");
    const auto* sd = take("sd");
    if (!mean || !sd) fail(flag, text, "normal needs mean= and sd=");
    spec.kind = LengthSpec::Kind::normal;
    spec.mean = parse_number(*mean, flag, text);
    spec.sd = parse_number(*sd, flag, text);
    if (spec.mean < 1 || spec.mean > static_cast<double>(kMaxLengthTokens))
      fail(flag, text, "mean must be from 1 to 10000000");
    if (spec.sd < 0) fail(flag, text, "sd must not be negative");
    spec.min = take("min") ? parse_length(*take("min"), flag, text) : 1;
    spec.max = take("max")
                   ? parse_length(*take("max"), flag, text)
                   : std::clamp<int64_t>(static_cast<int64_t>(std::ceil(spec.mean + 6 * spec.sd)),
                                         spec.min, kMaxLengthTokens);
    if (spec.min > spec.max) fail(flag, text, "min is above max");
  } else if (kind == "empirical" || kind == "list") {
    if (!keyed.empty() || bare.empty()) fail(flag, text, "empirical takes a list of lengths");
    spec.kind = LengthSpec::Kind::empirical;
    for (std::string_view v : bare) spec.values.push_back(parse_length(v, flag, text));
    spec.min = *std::min_element(spec.values.begin(), spec.values.end());
    spec.max = *std::max_element(spec.values.begin(), spec.values.end());
  } else {
    fail(flag, text, fmt::format("unknown distribution '{}'", kind));
  }
  return spec;
}

LengthSpec parse_output_length_spec(std::string_view text, std::string_view flag) {
  LengthSpec out = parse_length_spec(text, flag);
  if (out.unit == LengthUnit::chars)
    throw usage_error(fmt::format(
        "{} '{}': output lengths are in tokens (max_tokens); drop unit=chars", flag, text));
  return out;
}

}  // namespace sb::workload
