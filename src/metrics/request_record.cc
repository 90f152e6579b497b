// Derived per-request metrics of docs/metrics.md. All differences are taken in integer
// nanoseconds and converted to milliseconds once, so no precision is lost before the
// subtraction.
#include "metrics/request_record.h"

#include <array>

namespace sb::metrics {

namespace {

constexpr std::array<std::string_view, 5> kTokenSourceNames = {"usage", "details", "tokenizer",
                                                               "estimate", "none"};

// (to - from) in ms, or nullopt when either instant is absent.
std::optional<double> span_ms(int64_t from_ns, int64_t to_ns) {
  if (from_ns == kNoTime || to_ns == kNoTime) return std::nullopt;
  return static_cast<double>(to_ns - from_ns) / 1e6;
}

}  // namespace

std::string_view to_string(TokenSource s) {
  return kTokenSourceNames[static_cast<size_t>(s)];
}

std::optional<TokenSource> token_source_from_string(std::string_view name) {
  for (size_t i = 0; i < kTokenSourceNames.size(); ++i)
    if (kTokenSourceNames[i] == name) return static_cast<TokenSource>(i);
  return std::nullopt;
}

std::optional<double> RequestRecord::ttft_ms() const {
  return span_ms(t_send_ns, t_first_ns);
}

std::optional<double> RequestRecord::ttft_content_ms() const {
  return span_ms(t_send_ns, t_first_content_ns);
}

std::optional<double> RequestRecord::reasoning_ms() const {
  if (reasoning_tokens < 0) return std::nullopt;
  return span_ms(t_first_ns, t_first_content_ns);
}

std::optional<double> RequestRecord::e2e_ms() const {
  return span_ms(t_send_ns, t_last_ns);
}

std::optional<double> RequestRecord::scheduled_e2e_ms() const {
  return span_ms(t_sched_ns, t_last_ns);
}

std::optional<double> RequestRecord::tpot_ms() const {
  if (output_tokens <= 1 || t_send_ns == kNoTime || t_first_ns == kNoTime || t_last_ns == kNoTime)
    return std::nullopt;
  // e2e - ttft == t_last - t_first, exactly, in integer ns.
  return static_cast<double>(t_last_ns - t_first_ns) / 1e6 / static_cast<double>(output_tokens - 1);
}

std::optional<double> RequestRecord::dispatch_delay_ms() const {
  return span_ms(t_sched_ns, t_send_ns);
}

std::optional<double> RequestRecord::client_network_ms() const {
  const auto e2e = e2e_ms();
  if (!e2e || server.total_ms < 0) return std::nullopt;
  return *e2e - server.total_ms;
}

}  // namespace sb::metrics
