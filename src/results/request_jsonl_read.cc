// Reading requests.jsonl lines back (parse_request_jsonl, request_jsonl.h) with simdjson's
// on-demand parser: one pass over the line's fields, dispatched by name, into a RequestRecord.
// `servebench summarize` and every run's own read-back go through here, 10 M lines for a long
// run, so a line costs about a microsecond rather than nlohmann's tree (issue 21, item 4).
#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "quality/quality_json.h"
#include "results/request_jsonl.h"

namespace sb::results {
namespace {

using metrics::kNoTime;
using metrics::RequestRecord;
using metrics::TokenSource;
using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;
using simdjson::ondemand::value;

[[noreturn]] void bad_field(std::string_view name, std::string_view want) {
  throw Error(fmt::format("requests.jsonl: field '{}' is not {}", name, want));
}

// A field's number; any other type is an error.
double number_of(value v, std::string_view name) {
  if (v.type() != json_type::number) bad_field(name, "a number");
  return v.get_double();
}

std::string string_of(value v, std::string_view name) {
  if (v.type() != json_type::string) bad_field(name, "a string");
  return std::string(std::string_view(v.get_string()));
}

bool bool_of(value v, std::string_view name) {
  if (v.type() != json_type::boolean) bad_field(name, "a boolean");
  return v.get_bool();
}

// An integer that fits T; anything else (a float, an out-of-range value, another type) is an
// error, never a cast (casting 1e300 to an integer is undefined behaviour).
template <typename T>
T integer_of(value v, std::string_view name) {
  if (v.type() == json_type::number) {
    const number_type kind = v.get_number_type();
    if (kind == number_type::signed_integer) {
      const int64_t x = v.get_int64();
      if (x >= 0 &&
          static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(x);
      if constexpr (std::numeric_limits<T>::is_signed)
        if (x < 0 && x >= static_cast<int64_t>(std::numeric_limits<T>::min()))
          return static_cast<T>(x);
    } else if (kind == number_type::unsigned_integer) {
      const uint64_t x = v.get_uint64();
      if (x <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(x);
    }
  }
  bad_field(name, "an integer in range");
}

TokenSource source_of(value v, std::string_view name) {
  if (v.type() != json_type::string) bad_field(name, "a string");
  auto s = metrics::token_source_from_string(std::string_view(v.get_string()));
  if (!s) bad_field(name, "a token source name");
  return *s;
}

// A phase's milliseconds as a float; out of float's range reads as "did not happen" (-1).
float phase_of(value v, std::string_view name) {
  const double ms = number_of(v, name);
  return std::fabs(ms) <= 3e38 ? static_cast<float>(ms) : -1.0f;
}

int64_t ns_from(double units, double ns_per_unit) {
  // |t| <= 1e18 ns (~31 years): an instant plus a span still fits int64.
  const double ns = units * ns_per_unit;
  if (!(std::fabs(ns) <= 1e18))
    throw Error(fmt::format("requests.jsonl: time {} out of range (over ~31 years)", units));
  return static_cast<int64_t>(std::llround(ns));
}

// A value as an nlohmann tree (integers kept as integers).
nlohmann::json tree_of(value v) {
  switch (v.type()) {
    case json_type::object: {
      nlohmann::json out = nlohmann::json::object();
      for (auto field : v.get_object()) {
        const std::string key(std::string_view(field.unescaped_key()));
        out[key] = tree_of(field.value());
      }
      return out;
    }
    case json_type::array: {
      nlohmann::json out = nlohmann::json::array();
      for (value x : v.get_array()) out.push_back(tree_of(x));
      return out;
    }
    case json_type::number:
      switch (v.get_number_type()) {
        case number_type::signed_integer:
          return int64_t(v.get_int64());
        case number_type::unsigned_integer:
          return uint64_t(v.get_uint64());
        default:
          return double(v.get_double());
      }
    case json_type::string:
      return std::string(std::string_view(v.get_string()));
    case json_type::boolean:
      return bool(v.get_bool());
    case json_type::null:
      return nullptr;
  }
  return nullptr;
}

// The instants are written relative to the send (or the schedule): kept as read, set last.
struct Instants {
  std::optional<double> t_sched_s, t_send_s, t_end_s, ttft_ms, ttft_content_ms, e2e_ms,
      scheduled_e2e_ms;
};

// Reads one field of the line into `r` (or `at`); fields written only for people (ok, tpot_ms,
// dispatch_delay_ms, reasoning_ms, client_network_ms: derived again on read) and unknown ones
// are skipped.
void read_field(std::string_view key, value v, RequestRecord& r, Instants& at) {
  auto& c = r.client;
  auto& s = r.server;
  switch (key.size()) {
    case 2:
      if (key == "id") r.id = integer_of<uint64_t>(v, key);
      return;
    case 4:
      if (key == "turn") r.turn = integer_of<int32_t>(v, key);
      return;
    case 5:
      if (key == "class")
        r.request_class = string_of(v, key);
      else if (key == "error")
        r.error = string_of(v, key);
      else if (key == "items")
        r.items = integer_of<int64_t>(v, key);
      return;
    case 6:
      if (key == "warmup")
        r.warmup = bool_of(v, key);
      else if (key == "status")
        r.status = integer_of<int>(v, key);
      else if (key == "events")
        r.events = integer_of<uint32_t>(v, key);
      else if (key == "itl_ms") {
        if (v.type() != json_type::array) bad_field(key, "an array");
        for (value x : v.get_array()) {
          const double ms = x.type() == json_type::number ? double(x.get_double()) : NAN;
          r.itl_ms.push_back(std::fabs(ms) <= 3e38 ? static_cast<float>(ms) : NAN);  // float
        }
      } else if (key == "output")
        r.output_text = string_of(v, key);
      else if (key == "e2e_ms")
        at.e2e_ms = number_of(v, key);
      else if (key == "tls_ms")
        c.tls_ms = phase_of(v, key);
      return;
    case 7:
      if (key == "t_end_s")
        at.t_end_s = number_of(v, key);
      else if (key == "ttft_ms")
        at.ttft_ms = number_of(v, key);
      else if (key == "quality") {
        try {  // rare (scored runs only): read as quality_json.h reads it
          r.quality = std::make_shared<const quality::RequestQuality>(
              quality::quality_from_json(tree_of(v)));
        } catch (const nlohmann::json::exception& e) {
          throw Error(fmt::format("requests.jsonl: bad field type: {}", e.what()));
        }
      } else if (key == "ttfb_ms")
        c.ttfb_ms = phase_of(v, key);
      return;
    case 8:
      if (key == "priority")
        r.priority = integer_of<int64_t>(v, key);
      else if (key == "t_send_s")
        at.t_send_s = number_of(v, key);
      else if (key == "write_ms")
        c.write_ms = phase_of(v, key);
      return;
    case 9:
      if (key == "t_sched_s") at.t_sched_s = number_of(v, key);
      return;
    case 10:
      if (key == "session_id")
        r.session_id = integer_of<int64_t>(v, key);
      else if (key == "connect_ms")
        c.connect_ms = phase_of(v, key);
      else if (key == "headers_ms")
        c.headers_ms = phase_of(v, key);
      return;
    case 11:
      if (key == "error_class") {
        if (v.type() != json_type::string) bad_field(key, "a string");
        auto e = error_class_from_string(std::string_view(v.get_string()));
        if (!e) bad_field(key, "an error class name");
        r.error_class = *e;
      } else if (key == "conn_reused")
        c.reused = bool_of(v, key);
      return;
    case 12:
      if (key == "input_tokens")
        r.input_tokens = integer_of<int64_t>(v, key);
      else if (key == "pool_wait_ms")
        c.pool_wait_ms = phase_of(v, key);
      return;
    case 13:
      if (key == "session_turns")
        r.session_turns = integer_of<int32_t>(v, key);
      else if (key == "output_tokens")
        r.output_tokens = integer_of<int64_t>(v, key);
      return;
    case 14:
      if (key == "history_tokens")
        r.history_tokens = integer_of<int64_t>(v, key);
      else if (key == "priority_class")
        r.priority_class = string_of(v, key);
      return;
    case 15:
      if (key == "ttft_content_ms")
        at.ttft_content_ms = number_of(v, key);
      else if (key == "server_queue_ms")
        s.queue_ms = number_of(v, key);
      else if (key == "server_total_ms")
        s.total_ms = number_of(v, key);
      else if (key == "read_lag_max_ms")
        c.read_lag_max_ms = phase_of(v, key);
      return;
    case 16:
      if (key == "reasoning_tokens")
        r.reasoning_tokens = integer_of<int64_t>(v, key);
      else if (key == "scheduled_e2e_ms")
        at.scheduled_e2e_ms = number_of(v, key);
      else if (key == "server_decode_ms")
        s.decode_ms = number_of(v, key);
      return;
    case 17:
      if (key == "output_tokens_alt")
        r.output_tokens_alt = integer_of<int64_t>(v, key);
      else if (key == "server_prefill_ms")
        s.prefill_ms = number_of(v, key);
      return;
    case 19:
      if (key == "server_inference_ms") s.inference_ms = number_of(v, key);
      return;
    case 20:
      if (key == "output_tokens_source")
        r.output_tokens_source = source_of(v, key);
      else if (key == "server_cached_tokens")
        s.cached_tokens = integer_of<int64_t>(v, key);
      else if (key == "server_timing_source") {
        if (v.type() != json_type::string) bad_field(key, "a string");
        auto t = server_timing_source_from_string(std::string_view(v.get_string()));
        if (!t) bad_field(key, "a server timing source name");
        s.source = *t;
      }
      return;
    case 23:
      if (key == "reasoning_tokens_source") r.reasoning_tokens_source = source_of(v, key);
      return;
    case 24:
      if (key == "output_tokens_alt_source") r.output_tokens_alt_source = source_of(v, key);
      return;
    default:
      return;
  }
}

}  // namespace

struct RequestJsonlReader::Parser {
  simdjson::ondemand::parser parser;
};

RequestJsonlReader::RequestJsonlReader() : parser_(std::make_unique<Parser>()) {}
RequestJsonlReader::~RequestJsonlReader() = default;

RequestRecord RequestJsonlReader::parse(std::string_view line) {
  RequestRecord r;
  parse_into(line, r);
  return r;
}

void RequestJsonlReader::parse_into(std::string_view line, RequestRecord& r) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const size_t need = line.size() + simdjson::SIMDJSON_PADDING;
  if (need > buffer_.size()) buffer_.resize(std::max(need, buffer_.size() * 2));
  std::memcpy(buffer_.data(), line.data(), line.size());
  std::memset(buffer_.data() + line.size(), 0, simdjson::SIMDJSON_PADDING);
  const auto not_an_object = [&] {
    return Error(fmt::format("requests.jsonl: not a JSON object: '{}'",
                             line.substr(0, std::min<size_t>(line.size(), 80))));
  };
  Instants at;
  try {
    simdjson::ondemand::document doc = parser_->parser.iterate(
        simdjson::padded_string_view(buffer_.data(), line.size(), buffer_.size()));
    if (doc.type() != json_type::object) throw not_an_object();
    for (auto field : doc.get_object()) {
      const std::string_view key = field.unescaped_key();
      value v = field.value();
      if (v.type() == json_type::null) continue;  // null: as if absent
      read_field(key, v, r, at);
    }
    const char* rest = nullptr;
    if (doc.current_location().get(rest) == simdjson::SUCCESS)
      throw not_an_object();  // something after the object
  } catch (const simdjson::simdjson_error& e) {
    throw Error(fmt::format("requests.jsonl: not a JSON object ({}): '{}'", e.what(),
                            line.substr(0, std::min<size_t>(line.size(), 80))));
  }
  if (at.t_sched_s) r.t_sched_ns = ns_from(*at.t_sched_s, 1e9);
  if (at.t_send_s) r.t_send_ns = ns_from(*at.t_send_s, 1e9);
  if (at.t_end_s) r.t_end_ns = ns_from(*at.t_end_s, 1e9);
  // The event instants are stored relative to the send (or the schedule).
  if (r.t_send_ns != kNoTime) {
    if (at.ttft_ms) r.t_first_ns = r.t_send_ns + ns_from(*at.ttft_ms, 1e6);
    if (at.ttft_content_ms) r.t_first_content_ns = r.t_send_ns + ns_from(*at.ttft_content_ms, 1e6);
    if (at.e2e_ms) r.t_last_ns = r.t_send_ns + ns_from(*at.e2e_ms, 1e6);
  } else if (r.t_sched_ns != kNoTime) {
    if (at.scheduled_e2e_ms) r.t_last_ns = r.t_sched_ns + ns_from(*at.scheduled_e2e_ms, 1e6);
  }
}

RequestRecord parse_request_jsonl(std::string_view line) {
  thread_local RequestJsonlReader reader;
  return reader.parse(line);
}

}  // namespace sb::results
