#include "results/request_jsonl.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "common/json_escape.h"
#include "quality/quality_json.h"

namespace sb::results {

namespace {

using metrics::kNoTime;
using metrics::RequestRecord;
using metrics::TokenSource;

void put_number(std::string& out, const std::optional<double>& v) {
  if (v && std::isfinite(*v))
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), *v);
  else
    out += "null";
}

void put_seconds(std::string& out, int64_t t_ns) {
  put_number(
      out, t_ns == kNoTime ? std::nullopt : std::optional<double>(static_cast<double>(t_ns) / 1e9));
}

// A float in its shortest form; "null" when not finite.
void put_float(std::string& out, float v) {
  if (v == 0)
    out += '0';  // -0 too: "-0" would read back as the integer 0, not as -0
  else if (std::isfinite(v))
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  else
    out += "null";
}

// A phase's milliseconds, or null when it did not happen (negative).
void put_phase(std::string& out, std::string_view name, float ms) {
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"{}\":"), name);
  if (ms < 0)
    out += "null";
  else
    put_float(out, ms);
}

void put_client_phases(std::string& out, const RequestRecord::ClientPhases& c) {
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"conn_reused\":{}"), c.reused);
  put_phase(out, "pool_wait_ms", c.pool_wait_ms);
  put_phase(out, "connect_ms", c.connect_ms);
  put_phase(out, "tls_ms", c.tls_ms);
  put_phase(out, "write_ms", c.write_ms);
  put_phase(out, "ttfb_ms", c.ttfb_ms);
  put_phase(out, "headers_ms", c.headers_ms);
  put_phase(out, "read_lag_max_ms", c.read_lag_max_ms);
}

void put_server_times(std::string& out, const ServerTimes& t, std::optional<double> client_ms) {
  auto put = [&](std::string_view name, double ms) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"{}\":"), name);
    put_number(out, ms >= 0 ? std::optional<double>(ms) : std::nullopt);
  };
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"server_timing_source\":\"{}\""),
                 to_string(t.source));
  put("server_queue_ms", t.queue_ms);
  put("server_prefill_ms", t.prefill_ms);
  put("server_decode_ms", t.decode_ms);
  put("server_inference_ms", t.inference_ms);
  put("server_total_ms", t.total_ms);
  if (t.cached_tokens >= 0)
    fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"server_cached_tokens\":{}"),
                   t.cached_tokens);
  else
    out += ",\"server_cached_tokens\":null";
  out += ",\"client_network_ms\":";
  put_number(out, client_ms);
}

}  // namespace

void append_request_jsonl(std::string& out, const RequestRecord& r) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, FMT_COMPILE("{{\"id\":{},\"class\":"), r.id);
  append_json_string(out, r.request_class);
  fmt::format_to(
      it, FMT_COMPILE(",\"warmup\":{},\"ok\":{},\"status\":{},\"error_class\":\"{}\",\"error\":"),
      r.warmup, r.ok(), r.status, to_string(r.error_class));
  append_json_string(out, r.error);
  out += ",\"t_sched_s\":";
  put_seconds(out, r.t_sched_ns);
  out += ",\"t_send_s\":";
  put_seconds(out, r.t_send_ns);
  out += ",\"t_end_s\":";
  put_seconds(out, r.t_end_ns);
  out += ",\"ttft_ms\":";
  put_number(out, r.ttft_ms());
  out += ",\"ttft_content_ms\":";
  put_number(out, r.ttft_content_ms());
  out += ",\"tpot_ms\":";
  put_number(out, r.tpot_ms());
  out += ",\"e2e_ms\":";
  put_number(out, r.e2e_ms());
  out += ",\"scheduled_e2e_ms\":";
  put_number(out, r.scheduled_e2e_ms());
  out += ",\"dispatch_delay_ms\":";
  put_number(out, r.dispatch_delay_ms());
  if (r.session_id >= 0)
    fmt::format_to(
        it,
        FMT_COMPILE(",\"session_id\":{},\"turn\":{},\"session_turns\":{},\"history_tokens\":{}"),
        r.session_id, r.turn, r.session_turns, r.history_tokens);
  if (!r.priority_class.empty()) {
    out += ",\"priority_class\":";
    append_json_string(out, r.priority_class);
    fmt::format_to(it, FMT_COMPILE(",\"priority\":{}"), r.priority);
  }
  if (r.items >= 0) fmt::format_to(it, FMT_COMPILE(",\"items\":{}"), r.items);
  fmt::format_to(
      it, FMT_COMPILE(",\"input_tokens\":{},\"output_tokens\":{},\"output_tokens_source\":\"{}\""),
      r.input_tokens, r.output_tokens, to_string(r.output_tokens_source));
  if (r.output_tokens_alt >= 0)
    fmt::format_to(it, FMT_COMPILE(",\"output_tokens_alt\":{},\"output_tokens_alt_source\":\"{}\""),
                   r.output_tokens_alt, to_string(r.output_tokens_alt_source));
  else
    out += ",\"output_tokens_alt\":null,\"output_tokens_alt_source\":null";
  if (r.reasoning_tokens >= 0)
    fmt::format_to(it, FMT_COMPILE(",\"reasoning_tokens\":{},\"reasoning_tokens_source\":\"{}\""),
                   r.reasoning_tokens, to_string(r.reasoning_tokens_source));
  else
    out += ",\"reasoning_tokens\":null,\"reasoning_tokens_source\":null";
  out += ",\"reasoning_ms\":";
  put_number(out, r.reasoning_ms());
  put_client_phases(out, r.client);
  if (r.server.any()) put_server_times(out, r.server, r.client_network_ms());
  fmt::format_to(it, FMT_COMPILE(",\"events\":{},\"itl_ms\":["), r.events);
  for (size_t i = 0; i < r.itl_ms.size(); ++i) {
    if (i) out += ',';
    put_float(out, r.itl_ms[i]);
  }
  out += ']';
  if (r.quality) {
    out += ",\"quality\":";
    quality::append_quality_json(out, *r.quality);
  }
  if (!r.output_text.empty()) {
    out += ",\"output\":";
    append_json_string(out, r.output_text);
  }
  out += "}\n";
}

}  // namespace sb::results
