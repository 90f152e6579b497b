#include "report/request_samples.h"

#include <algorithm>
#include <cmath>

namespace sb::report {

std::vector<quality::RunOutput> RequestSamples::output_views() const {
  std::vector<quality::RunOutput> out;
  out.reserve(outputs.size());
  for (const Output& o : outputs) out.push_back({o.id, o.ok, o.text, o.output_tokens});
  return out;
}

std::vector<double> RequestSamples::completion_gaps_s() const {
  std::vector<double> gaps;
  gaps.reserve(completions.size());
  int64_t prev = first_send_ns;
  for (const Completion& c : completions) {
    const int64_t from = prev == metrics::kNoTime ? c.t_end_ns : prev;
    gaps.push_back(static_cast<double>(std::max<int64_t>(0, c.t_end_ns - from)) / 1e9);
    prev = c.t_end_ns;
  }
  return gaps;
}

void RequestSamples::add(const metrics::RequestRecord& r, Keep keep) {
  if (r.warmup) return;
  ++measured;
  if (r.t_send_ns != metrics::kNoTime &&
      (first_send_ns == metrics::kNoTime || r.t_send_ns < first_send_ns))
    first_send_ns = r.t_send_ns;
  if (keep.outputs) outputs.push_back({r.id, r.ok(), r.output_text, r.output_tokens});
  if (!r.ok()) return;
  ++ok;
  auto finite = [](std::vector<double>& v, std::optional<double> x) {
    if (x && std::isfinite(*x)) v.push_back(*x);
  };
  finite(ttft_ms, r.ttft_ms());
  finite(tpot_ms, r.tpot_ms());
  finite(e2e_ms, r.e2e_ms());
  if (keep.gaps) {
    const size_t before = itl_ms.size();
    for (float f : r.itl_ms)
      if (std::isfinite(f)) itl_ms.push_back(f);
    if (itl_ms.size() > before) itl_begin.push_back(itl_ms.size());
  }
  if (r.t_end_ns != metrics::kNoTime) completions.push_back({r.t_end_ns, r.output_tokens});
}

void RequestSamples::finish() {
  std::stable_sort(
      completions.begin(), completions.end(),
      [](const Completion& a, const Completion& b) { return a.t_end_ns < b.t_end_ns; });
}

void RequestSamples::reserve(int64_t ok_requests, int64_t gaps) {
  const auto n = static_cast<size_t>(std::max<int64_t>(0, ok_requests));
  for (auto* v : {&ttft_ms, &tpot_ms, &e2e_ms}) v->reserve(n);
  completions.reserve(n);
  if (gaps > 0) {
    itl_ms.reserve(static_cast<size_t>(gaps));
    itl_begin.reserve(n + 1);
  }
}

}  // namespace sb::report
