#include "workload/token_estimate.h"

namespace sb::workload {

int64_t estimate_tokens(std::string_view text) {
  const auto chars = static_cast<int64_t>(text.size());
  return (chars + kCharsPerToken - 1) / kCharsPerToken;
}

}  // namespace sb::workload
