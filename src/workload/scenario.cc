#include "workload/scenario.h"

#include <charconv>

#include <fmt/format.h>

#include "common/error.h"
#include "workload/rng.h"

namespace sb::workload {
namespace {

constexpr uint64_t kClassStream = 0xC1A55;

RequestClass chat_class() {
  return {"chat", parse_length_spec("uniform:min=50,max=100,unit=chars", "chat"),
          parse_length_spec("uniform:min=32,max=128", "chat"), 100};
}

RequestClass long_class() {
  return {"long", parse_length_spec("uniform:min=500,max=2000,unit=chars", "long"),
          parse_length_spec("uniform:min=256,max=512", "long"), 100};
}

[[noreturn]] void unknown(std::string_view name, std::string_view why) {
  throw usage_error(fmt::format(
      "--scenario '{}': {}; expected chat, long or mixed (mixed:CHAT/LONG sets the ratio in "
      "percent, e.g. mixed:70/30)",
      name, why));
}

unsigned parse_percent(std::string_view v, std::string_view name) {
  unsigned p = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), p);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || p > 100)
    unknown(name, fmt::format("'{}' is not a percentage", v));
  return p;
}

}  // namespace

const RequestClass& Scenario::pick(uint64_t seed, uint64_t index) const {
  if (classes.size() == 1) return classes.front();
  Rng rng(seed, index, kClassStream);
  unsigned roll = static_cast<unsigned>(rng.next() % 100);
  for (const RequestClass& c : classes) {
    if (roll < c.weight_percent) return c;
    roll -= c.weight_percent;
  }
  return classes.back();
}

Scenario parse_scenario(std::string_view name) {
  Scenario s;
  s.name = std::string(name);
  if (name == "chat") {
    s.classes = {chat_class()};
  } else if (name == "long") {
    s.classes = {long_class()};
  } else if (name == "mixed" || name.starts_with("mixed:")) {
    unsigned chat = 70, lng = 30;
    if (name != "mixed") {
      const std::string_view ratio = name.substr(6);
      const auto slash = ratio.find('/');
      if (slash == std::string_view::npos) unknown(name, "the ratio needs CHAT/LONG");
      chat = parse_percent(ratio.substr(0, slash), name);
      lng = parse_percent(ratio.substr(slash + 1), name);
      if (chat + lng != 100) unknown(name, "the two percentages must add up to 100");
    }
    s.classes = {chat_class(), long_class()};
    s.classes[0].weight_percent = chat;
    s.classes[1].weight_percent = lng;
  } else {
    unknown(name, name.empty() ? "empty" : "unknown scenario");
  }
  return s;
}

}  // namespace sb::workload
