#include "metrics/run_summary.h"

#include "metrics/run_accumulator.h"

namespace sb::metrics {

RunSummary summarize_run(const std::vector<RequestRecord>& records, const RunInfo& info) {
  RunAccumulator a(info);
  for (const RequestRecord& r : records) a.add(r);
  return a.finish(info);
}

}  // namespace sb::metrics
