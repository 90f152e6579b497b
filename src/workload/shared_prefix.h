#pragma once
// --shared-prefix: prompts made of N shared prefixes and M suffixes each (the prefix-cache
// workload); the spec's shape, parsed on its own so that plans check it at load time.
#include <cstdint>
#include <string_view>

#include "workload/length_spec.h"

namespace sb::workload {

struct SharedPrefixSpec {
  int64_t prefixes = 1, suffixes = 1;
  int64_t prefix_length = 512, suffix_length = 32;
  LengthUnit unit = LengthUnit::tokens;
};
// "prefixes=N,suffixes=M[,prefix=T][,suffix=T][,unit=chars]", each length 1..10,000,000.
// Throws sb::Error (usage) naming --shared-prefix.
SharedPrefixSpec parse_shared_prefix(std::string_view text);

}  // namespace sb::workload
