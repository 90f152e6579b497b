#pragma once
// Named workload presets (`--scenario`), after the reference study of docs/architecture.md:
//   chat        prompts of 50-100 characters, short answers (32-128 output tokens);
//   long        prompts of 500-2000 characters, long generation (256-512 output tokens);
//   mixed       chat and long interleaved: each request is chat with probability 70%
//               (seeded per request index); `mixed:80/20` sets the ratio.
// Each request carries its class ("chat" or "long") into the results, which report every
// metric per class too. `--input-dist` / `--output-dist` override the preset's lengths
// for every class.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workload/length_spec.h"

namespace sb::workload {

struct RequestClass {
  std::string name;
  LengthSpec input;
  LengthSpec output;
  unsigned weight_percent = 100;  // share of requests; the weights of a scenario add to 100
};

struct Scenario {
  std::string name;  // as given, e.g. "mixed:80/20"
  std::vector<RequestClass> classes;

  // The class of request `index`, drawn with the weights from (seed, index).
  const RequestClass& pick(uint64_t seed, uint64_t index) const;
};

// "chat", "long", "mixed" or "mixed:CHAT/LONG" (percentages adding up to 100). Throws
// sb::Error (usage) naming --scenario and the known names.
Scenario parse_scenario(std::string_view name);

}  // namespace sb::workload
