// Fuzz target: results::parse_request_jsonl, the reader `servebench summarize`
// runs over a requests.jsonl that may be cut, hand-edited or from another
// version. Checked: it returns a record or throws sb::Error (nothing else); a
// parsed record summarises without crashing; and writing it back is a fixed
// point (write -> parse -> write gives the same line) for runs shorter than the
// ~100 days request_jsonl.h promises exact times for.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "fuzz_check.h"
#include "metrics/run_summary.h"
#include "results/request_jsonl.h"

namespace {

bool plausible(int64_t t_ns) {
  return t_ns == sb::metrics::kNoTime ||
         (t_ns > -1'000'000'000'000'000 && t_ns < 1'000'000'000'000'000);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  sb::metrics::RequestRecord r;
  try {
    r = sb::results::parse_request_jsonl(line);
  } catch (const sb::Error&) {
    return 0;
  }
  sb::metrics::RunInfo info;
  info.slo.ttft_ms = 100;
  info.slo.tpot_ms = 10;
  // Time series on: a far-future time must widen its buckets, not exhaust memory
  // (corpus crash-timeout-timeseries-9e6s).
  (void)sb::metrics::summarize_run({r, r}, info);

  if (!plausible(r.t_sched_ns) || !plausible(r.t_send_ns) || !plausible(r.t_end_ns) ||
      !plausible(r.t_first_ns) || !plausible(r.t_first_content_ns) || !plausible(r.t_last_ns))
    return 0;
  std::string first;
  sb::results::append_request_jsonl(first, r);
  sb::metrics::RequestRecord again;
  try {
    again = sb::results::parse_request_jsonl(first);
  } catch (const sb::Error& e) {
    std::fprintf(stderr, "written line does not parse back: %s\n%s", e.what(), first.c_str());
    std::abort();
  }
  std::string second;
  sb::results::append_request_jsonl(second, again);
  if (first != second) std::fprintf(stderr, "first:  %ssecond: %s", first.c_str(), second.c_str());
  FUZZ_CHECK(first == second);
  return 0;
}
