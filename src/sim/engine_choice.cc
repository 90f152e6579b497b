#include "sim/engine_choice.h"

#include <cctype>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/engine_behaviour.h"

namespace sb::sim {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

std::vector<std::string> known_engines() {
  return engine_names();
}

std::string canonical_engine(std::string_view name) {
  const std::vector<std::string> known = known_engines();
  std::string key = lower(name);
  if (key == "tgi") key = "tgi-1.x";
  for (const auto& e : known)
    if (lower(e) == key) return e;
  std::string list;
  for (const auto& e : known) list += (list.empty() ? "" : ", ") + e;
  throw usage_error(fmt::format("sim: unknown engine '{}' (known: {})", name, list));
}

void apply_engine(std::string_view engine, SimConfig& c) {
  apply_engine_behaviour(engine, c);
}

}  // namespace sb::sim
