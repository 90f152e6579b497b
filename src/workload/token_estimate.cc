#include "workload/token_estimate.h"

namespace sb::workload {

int64_t estimate_tokens_from_bytes(uint64_t bytes) {
  return static_cast<int64_t>((bytes + kCharsPerToken - 1) / kCharsPerToken);
}

}  // namespace sb::workload
