#pragma once
// Length distributions for synthetic prompts and outputs (`--input-dist`, `--output-dist`,
// scenario presets). Spec syntax, KIND:KEY=VALUE,...:
//   N  or  fixed:N                         always N
//   uniform:min=A,max=B                    uniform integer in [A, B]
//   normal:mean=M,sd=S[,min=A][,max=B]     normal, redrawn (up to 64 times, then clamped)
//                                          until in [min, max]; min defaults to 1,
//                                          max to mean + 6 sd
//   empirical:V1,V2,...                    one of the values, uniformly (repeat a value to
//                                          weight it)
// Any spec may add `unit=tokens` (the default) or `unit=chars`, e.g.
// `uniform:min=50,max=100,unit=chars`. Lengths are 1 .. 10,000,000.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workload/rng.h"

namespace sb::workload {

enum class LengthUnit { tokens, chars };

// The longest prompt or output, in tokens, that any workload source makes or accepts.
inline constexpr int64_t kMaxLengthTokens = 10'000'000;

struct LengthSpec {
  enum class Kind { fixed, uniform, normal, empirical };
  Kind kind = Kind::fixed;
  LengthUnit unit = LengthUnit::tokens;
  int64_t min = 1, max = 1;     // fixed: min == max == N; uniform and normal: the bounds
  double mean = 0, sd = 0;      // normal
  std::vector<int64_t> values;  // empirical

  static LengthSpec fixed_tokens(int64_t n);
  // A length drawn from the distribution; always within [1, 10,000,000].
  int64_t sample(Rng& rng) const;
  // The spec in canonical syntax (parse_length_spec(to_string()) gives it back).
  std::string to_string() const;
};

// Parses a spec; throws sb::Error (usage) naming `flag` and the expected syntax.
LengthSpec parse_length_spec(std::string_view text, std::string_view flag);
// The same for output lengths, which are max_tokens: unit=chars is an error.
LengthSpec parse_output_length_spec(std::string_view text, std::string_view flag);

}  // namespace sb::workload
