#pragma once
// Hand-built request records shared by the metrics tests (times given in ms).
#include <optional>
#include <vector>

#include "metrics/request_record.h"

namespace sb::metrics::testing {

constexpr int64_t ms(double v) {
  return static_cast<int64_t>(v * 1'000'000);
}
inline int64_t ms_or_none(std::optional<double> v) {
  return v ? ms(*v) : kNoTime;
}

struct Times {
  std::optional<double> sched, send, first, last, end;
};

inline RequestRecord make_record(uint64_t id, Times t, int64_t output_tokens,
                                 ErrorClass ec = ErrorClass::ok) {
  RequestRecord r;
  r.id = id;
  r.t_sched_ns = ms_or_none(t.sched);
  r.t_send_ns = ms_or_none(t.send);
  r.t_first_ns = ms_or_none(t.first);
  r.t_first_content_ns = r.t_first_ns;
  r.t_last_ns = ms_or_none(t.last);
  r.t_end_ns = ms_or_none(t.end);
  r.output_tokens = output_tokens;
  r.error_class = ec;
  if (output_tokens > 0) r.output_tokens_source = TokenSource::usage;
  return r;
}

}  // namespace sb::metrics::testing
