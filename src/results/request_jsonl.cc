#include "results/request_jsonl.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "quality/quality_json.h"
#include "results/json_escape.h"

namespace sb::results {

namespace {

using metrics::kNoTime;
using metrics::RequestRecord;
using metrics::TokenSource;

void put_number(std::string& out, const std::optional<double>& v) {
  if (v && std::isfinite(*v))
    fmt::format_to(std::back_inserter(out), "{}", *v);
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
    fmt::format_to(std::back_inserter(out), "{}", v);
  else
    out += "null";
}

// A phase's milliseconds, or null when it did not happen (negative).
void put_phase(std::string& out, std::string_view name, float ms) {
  fmt::format_to(std::back_inserter(out), ",\"{}\":", name);
  if (ms < 0)
    out += "null";
  else
    put_float(out, ms);
}

void put_client_phases(std::string& out, const RequestRecord::ClientPhases& c) {
  fmt::format_to(std::back_inserter(out), ",\"conn_reused\":{}", c.reused);
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
    fmt::format_to(std::back_inserter(out), ",\"{}\":", name);
    put_number(out, ms >= 0 ? std::optional<double>(ms) : std::nullopt);
  };
  fmt::format_to(std::back_inserter(out), ",\"server_timing_source\":\"{}\"", to_string(t.source));
  put("server_queue_ms", t.queue_ms);
  put("server_prefill_ms", t.prefill_ms);
  put("server_decode_ms", t.decode_ms);
  put("server_inference_ms", t.inference_ms);
  put("server_total_ms", t.total_ms);
  if (t.cached_tokens >= 0)
    fmt::format_to(std::back_inserter(out), ",\"server_cached_tokens\":{}", t.cached_tokens);
  else
    out += ",\"server_cached_tokens\":null";
  out += ",\"client_network_ms\":";
  put_number(out, client_ms);
}

}  // namespace

void append_request_jsonl(std::string& out, const RequestRecord& r) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"id\":{},\"class\":", r.id);
  append_json_string(out, r.request_class);
  fmt::format_to(it, ",\"warmup\":{},\"ok\":{},\"status\":{},\"error_class\":\"{}\",\"error\":",
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
    fmt::format_to(it, ",\"session_id\":{},\"turn\":{},\"session_turns\":{},\"history_tokens\":{}",
                   r.session_id, r.turn, r.session_turns, r.history_tokens);
  if (!r.priority_class.empty()) {
    out += ",\"priority_class\":";
    append_json_string(out, r.priority_class);
    fmt::format_to(it, ",\"priority\":{}", r.priority);
  }
  if (r.items >= 0) fmt::format_to(it, ",\"items\":{}", r.items);
  fmt::format_to(it, ",\"input_tokens\":{},\"output_tokens\":{},\"output_tokens_source\":\"{}\"",
                 r.input_tokens, r.output_tokens, to_string(r.output_tokens_source));
  if (r.output_tokens_alt >= 0)
    fmt::format_to(it, ",\"output_tokens_alt\":{},\"output_tokens_alt_source\":\"{}\"",
                   r.output_tokens_alt, to_string(r.output_tokens_alt_source));
  else
    out += ",\"output_tokens_alt\":null,\"output_tokens_alt_source\":null";
  if (r.reasoning_tokens >= 0)
    fmt::format_to(it, ",\"reasoning_tokens\":{},\"reasoning_tokens_source\":\"{}\"",
                   r.reasoning_tokens, to_string(r.reasoning_tokens_source));
  else
    out += ",\"reasoning_tokens\":null,\"reasoning_tokens_source\":null";
  out += ",\"reasoning_ms\":";
  put_number(out, r.reasoning_ms());
  put_client_phases(out, r.client);
  if (r.server.any()) put_server_times(out, r.server, r.client_network_ms());
  fmt::format_to(it, ",\"events\":{},\"itl_ms\":[", r.events);
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

namespace {

using nlohmann::json;

[[noreturn]] void bad_field(std::string_view name, std::string_view want) {
  throw Error(fmt::format("requests.jsonl: field '{}' is not {}", name, want));
}

const json* field(const json& j, const char* name) {
  auto it = j.find(name);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::optional<double> number_field(const json& j, const char* name) {
  const json* v = field(j, name);
  if (!v) return std::nullopt;
  if (!v->is_number()) bad_field(name, "a number");
  return v->get<double>();
}

int64_t ns_from(double units, double ns_per_unit) {
  // |t| <= 1e18 ns (~31 years): an instant plus a span still fits int64.
  const double ns = units * ns_per_unit;
  if (!(std::fabs(ns) <= 1e18))
    throw Error(fmt::format("requests.jsonl: time {} out of range (over ~31 years)", units));
  return static_cast<int64_t>(std::llround(ns));
}

// An integer field that fits T; anything else (a float, an out-of-range value) is an error,
// never a cast (casting 1e300 to an integer is undefined behaviour).
template <typename T>
T int_field(const json& v, const char* name) {
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(x);
  } else if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    if (x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max()))
      return static_cast<T>(x);
    if constexpr (std::numeric_limits<T>::is_signed)
      if (x < 0 && x >= static_cast<int64_t>(std::numeric_limits<T>::min()))
        return static_cast<T>(x);
  }
  bad_field(name, "an integer in range");
}

TokenSource source_field(const json& j, const char* name) {
  const json* v = field(j, name);
  if (!v) return TokenSource::none;
  if (!v->is_string()) bad_field(name, "a string");
  auto s = metrics::token_source_from_string(v->get_ref<const std::string&>());
  if (!s) bad_field(name, "a token source name");
  return *s;
}

float phase_field(const json& j, const char* name) {
  const auto v = number_field(j, name);
  return v && std::fabs(*v) <= 3e38 ? static_cast<float>(*v) : -1.0f;
}

void parse_client_phases(const json& j, RequestRecord::ClientPhases& c) {
  if (const json* v = field(j, "conn_reused")) {
    if (!v->is_boolean()) bad_field("conn_reused", "a boolean");
    c.reused = v->get<bool>();
  }
  c.pool_wait_ms = phase_field(j, "pool_wait_ms");
  c.connect_ms = phase_field(j, "connect_ms");
  c.tls_ms = phase_field(j, "tls_ms");
  c.write_ms = phase_field(j, "write_ms");
  c.ttfb_ms = phase_field(j, "ttfb_ms");
  c.headers_ms = phase_field(j, "headers_ms");
  c.read_lag_max_ms = phase_field(j, "read_lag_max_ms");
}

void parse_server_times(const json& j, ServerTimes& t) {
  t.queue_ms = number_field(j, "server_queue_ms").value_or(-1);
  t.prefill_ms = number_field(j, "server_prefill_ms").value_or(-1);
  t.decode_ms = number_field(j, "server_decode_ms").value_or(-1);
  t.inference_ms = number_field(j, "server_inference_ms").value_or(-1);
  t.total_ms = number_field(j, "server_total_ms").value_or(-1);
  if (const json* v = field(j, "server_cached_tokens"))
    t.cached_tokens = int_field<int64_t>(*v, "server_cached_tokens");
  if (const json* v = field(j, "server_timing_source")) {
    if (!v->is_string()) bad_field("server_timing_source", "a string");
    auto s = server_timing_source_from_string(v->get_ref<const std::string&>());
    if (!s) bad_field("server_timing_source", "a server timing source name");
    t.source = *s;
  }
}

}  // namespace

RequestRecord parse_request_jsonl(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    throw Error(fmt::format("requests.jsonl: not a JSON object: '{}'",
                            line.substr(0, std::min<size_t>(line.size(), 80))));
  RequestRecord r;
  try {
    if (const json* v = field(j, "id")) r.id = int_field<uint64_t>(*v, "id");
    if (const json* v = field(j, "class")) r.request_class = v->get<std::string>();
    if (const json* v = field(j, "warmup")) r.warmup = v->get<bool>();
    if (const json* v = field(j, "status")) r.status = int_field<int>(*v, "status");
    if (const json* v = field(j, "error")) r.error = v->get<std::string>();
    if (const json* v = field(j, "session_id")) r.session_id = int_field<int64_t>(*v, "session_id");
    if (const json* v = field(j, "turn")) r.turn = int_field<int32_t>(*v, "turn");
    if (const json* v = field(j, "session_turns"))
      r.session_turns = int_field<int32_t>(*v, "session_turns");
    if (const json* v = field(j, "history_tokens"))
      r.history_tokens = int_field<int64_t>(*v, "history_tokens");
    if (const json* v = field(j, "priority_class")) r.priority_class = v->get<std::string>();
    if (const json* v = field(j, "priority")) r.priority = int_field<int64_t>(*v, "priority");
    if (const json* v = field(j, "input_tokens"))
      r.input_tokens = int_field<int64_t>(*v, "input_tokens");
    if (const json* v = field(j, "items")) r.items = int_field<int64_t>(*v, "items");
    if (const json* v = field(j, "output_tokens"))
      r.output_tokens = int_field<int64_t>(*v, "output_tokens");
    if (const json* v = field(j, "output_tokens_alt"))
      r.output_tokens_alt = int_field<int64_t>(*v, "output_tokens_alt");
    if (const json* v = field(j, "reasoning_tokens"))
      r.reasoning_tokens = int_field<int64_t>(*v, "reasoning_tokens");
    if (const json* v = field(j, "events")) r.events = int_field<uint32_t>(*v, "events");
    if (const json* v = field(j, "itl_ms")) {
      if (!v->is_array()) bad_field("itl_ms", "an array");
      r.itl_ms.reserve(v->size());
      for (const json& x : *v) {
        const double ms = x.is_number() ? x.get<double>() : NAN;
        r.itl_ms.push_back(std::fabs(ms) <= 3e38 ? static_cast<float>(ms) : NAN);  // float range
      }
    }
    if (const json* v = field(j, "output")) r.output_text = v->get<std::string>();
    if (const json* v = field(j, "quality"))
      r.quality = std::make_shared<const quality::RequestQuality>(quality::quality_from_json(*v));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("requests.jsonl: bad field type: {}", e.what()));
  }
  if (const json* v = field(j, "error_class")) {
    if (!v->is_string()) bad_field("error_class", "a string");
    auto c = error_class_from_string(v->get_ref<const std::string&>());
    if (!c) bad_field("error_class", "an error class name");
    r.error_class = *c;
  }
  parse_client_phases(j, r.client);
  parse_server_times(j, r.server);
  r.output_tokens_source = source_field(j, "output_tokens_source");
  r.output_tokens_alt_source = source_field(j, "output_tokens_alt_source");
  r.reasoning_tokens_source = source_field(j, "reasoning_tokens_source");

  if (auto s = number_field(j, "t_sched_s")) r.t_sched_ns = ns_from(*s, 1e9);
  if (auto s = number_field(j, "t_send_s")) r.t_send_ns = ns_from(*s, 1e9);
  if (auto s = number_field(j, "t_end_s")) r.t_end_ns = ns_from(*s, 1e9);
  // The event instants are stored relative to the send (or the schedule).
  if (r.t_send_ns != kNoTime) {
    if (auto ms = number_field(j, "ttft_ms")) r.t_first_ns = r.t_send_ns + ns_from(*ms, 1e6);
    if (auto ms = number_field(j, "ttft_content_ms"))
      r.t_first_content_ns = r.t_send_ns + ns_from(*ms, 1e6);
    if (auto ms = number_field(j, "e2e_ms")) r.t_last_ns = r.t_send_ns + ns_from(*ms, 1e6);
  } else if (r.t_sched_ns != kNoTime) {
    if (auto ms = number_field(j, "scheduled_e2e_ms"))
      r.t_last_ns = r.t_sched_ns + ns_from(*ms, 1e6);
  }
  return r;
}

}  // namespace sb::results
