#include "results/request_jsonl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_escape.h"

namespace sb::results {
namespace {

using metrics::kNoTime;
using metrics::RequestRecord;
using metrics::TokenSource;
using nlohmann::json;

std::string escaped(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonEscape, SpecialCharacters) {
  EXPECT_EQ(escaped("plain"), "\"plain\"");
  EXPECT_EQ(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(escaped("l1\nl2\r\t\b\f"), "\"l1\\nl2\\r\\t\\b\\f\"");
  EXPECT_EQ(escaped(std::string_view("\x00\x01\x1f", 3)), "\"\\u0000\\u0001\\u001f\"");
  EXPECT_EQ(escaped("\x7f"), "\"\x7f\"");
}

TEST(JsonEscape, ValidUtf8IsKept) {
  const std::string s = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE4\xB8\xAD";  // é € 😀 中
  EXPECT_EQ(escaped(s), "\"" + s + "\"");
}

TEST(JsonEscape, InvalidBytesReplaced) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(escaped("a\xFF"
                    "b"),
            "\"a" + r + "b\"");                                         // never valid
  EXPECT_EQ(escaped("\x80"), "\"" + r + "\"");                          // stray continuation
  EXPECT_EQ(escaped("\xC0\xAF"), "\"" + r + r + "\"");                  // overlong '/'
  EXPECT_EQ(escaped("\xED\xA0\x80"), "\"" + r + r + r + "\"");          // surrogate U+D800
  EXPECT_EQ(escaped("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // > U+10FFFF
  EXPECT_EQ(escaped("\xE2\x82"), "\"" + r + r + "\"");                  // truncated at the end
  EXPECT_EQ(escaped("\xE2\x82z"), "\"" + r + r + "z\"");                // truncated mid-string
}

TEST(JsonEscape, AnyBytesParseAsJson) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (int i = 255; i >= 0; --i) all += static_cast<char>(i);
  const std::string out = escaped(all);
  json j;
  ASSERT_NO_THROW(j = json::parse(out));
  EXPECT_TRUE(j.is_string());
  EXPECT_NO_THROW((void)j.dump());  // dump() throws on invalid UTF-8
}

RequestRecord full_record() {
  RequestRecord r;
  r.id = 42;
  r.request_class = "chat";
  r.warmup = false;
  r.status = 200;
  r.t_sched_ns = 1'000'000'001;  // 1.000000001 s
  r.t_send_ns = 1'002'345'678;
  r.t_first_ns = 1'052'345'679;
  r.t_first_content_ns = 1'062'000'000;
  r.t_last_ns = 1'252'345'680;
  r.t_end_ns = 1'252'999'999;
  r.input_tokens = 128;
  r.output_tokens = 5;
  r.output_tokens_source = TokenSource::usage;
  r.output_tokens_alt = 6;
  r.output_tokens_alt_source = TokenSource::estimate;
  r.events = 5;
  r.itl_ms = {50.000001f, 49.5f, 0.125f, 50.25f};
  return r;
}

void expect_same(const RequestRecord& a, const RequestRecord& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.request_class, b.request_class);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error_class, b.error_class);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.t_sched_ns, b.t_sched_ns);
  EXPECT_EQ(a.t_send_ns, b.t_send_ns);
  EXPECT_EQ(a.t_first_ns, b.t_first_ns);
  EXPECT_EQ(a.t_first_content_ns, b.t_first_content_ns);
  EXPECT_EQ(a.t_last_ns, b.t_last_ns);
  EXPECT_EQ(a.t_end_ns, b.t_end_ns);
  EXPECT_EQ(a.input_tokens, b.input_tokens);
  EXPECT_EQ(a.output_tokens, b.output_tokens);
  EXPECT_EQ(a.output_tokens_source, b.output_tokens_source);
  EXPECT_EQ(a.output_tokens_alt, b.output_tokens_alt);
  EXPECT_EQ(a.output_tokens_alt_source, b.output_tokens_alt_source);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.itl_ms, b.itl_ms);
  EXPECT_EQ(a.client.reused, b.client.reused);
  EXPECT_EQ(a.client.pool_wait_ms, b.client.pool_wait_ms);
  EXPECT_EQ(a.client.connect_ms, b.client.connect_ms);
  EXPECT_EQ(a.client.tls_ms, b.client.tls_ms);
  EXPECT_EQ(a.client.write_ms, b.client.write_ms);
  EXPECT_EQ(a.client.ttfb_ms, b.client.ttfb_ms);
  EXPECT_EQ(a.client.headers_ms, b.client.headers_ms);
  EXPECT_EQ(a.client.read_lag_max_ms, b.client.read_lag_max_ms);
  EXPECT_EQ(a.server.source, b.server.source);
  EXPECT_EQ(a.server.queue_ms, b.server.queue_ms);
  EXPECT_EQ(a.server.prefill_ms, b.server.prefill_ms);
  EXPECT_EQ(a.server.decode_ms, b.server.decode_ms);
  EXPECT_EQ(a.server.inference_ms, b.server.inference_ms);
  EXPECT_EQ(a.server.total_ms, b.server.total_ms);
  EXPECT_EQ(a.server.cached_tokens, b.server.cached_tokens);
}

// Where the time went: the client's phases always, the server's times when it reported any.
TEST(RequestJsonl, ClientPhasesAndServerTimesRoundTrip) {
  RequestRecord r = full_record();
  r.client = {.pool_wait_ms = 0.25f,
              .connect_ms = 0.125f,
              .tls_ms = -1,
              .write_ms = 0.0625f,
              .ttfb_ms = 12.5f,
              .headers_ms = 12.75f,
              .read_lag_max_ms = 0.03125f,
              .reused = false};
  r.server.queue_ms = 7;
  r.server.inference_ms = 230;
  r.server.total_ms = 238;
  r.server.cached_tokens = 16;
  r.server.source = sb::ServerTimingSource::tgi_headers;
  std::string line;
  append_request_jsonl(line, r);
  const json j = json::parse(line);
  EXPECT_EQ(j.at("conn_reused"), false);
  EXPECT_DOUBLE_EQ(j.at("connect_ms").get<double>(), 0.125);
  EXPECT_TRUE(j.at("tls_ms").is_null());  // plain TCP: no handshake
  EXPECT_EQ(j.at("server_timing_source"), "tgi_headers");
  EXPECT_DOUBLE_EQ(j.at("server_queue_ms").get<double>(), 7);
  EXPECT_TRUE(j.at("server_prefill_ms").is_null());
  EXPECT_EQ(j.at("server_cached_tokens"), 16);
  // e2e 250.000002 ms - the server's 238 ms: what the client and the network added.
  EXPECT_NEAR(j.at("client_network_ms").get<double>(), 12.000002, 1e-9);
  expect_same(parse_request_jsonl(line), r);

  RequestRecord quiet = full_record();  // a server that reports nothing: no server_* fields
  line.clear();
  append_request_jsonl(line, quiet);
  EXPECT_FALSE(json::parse(line).contains("server_timing_source"));
  expect_same(parse_request_jsonl(line), quiet);
}

TEST(RequestJsonl, FieldsAndValues) {
  std::string line;
  append_request_jsonl(line, full_record());
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const json j = json::parse(line);
  for (const char* k :
       {"id", "class", "warmup", "ok", "status", "error_class", "error", "t_sched_s", "t_send_s",
        "ttft_ms", "tpot_ms", "e2e_ms", "scheduled_e2e_ms", "input_tokens", "output_tokens",
        "output_tokens_source", "events", "itl_ms"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j.at("id"), 42);
  EXPECT_EQ(j.at("class"), "chat");
  EXPECT_EQ(j.at("ok"), true);
  EXPECT_EQ(j.at("error_class"), "ok");
  EXPECT_EQ(j.at("error"), "");
  EXPECT_DOUBLE_EQ(j.at("t_send_s").get<double>(), 1.002345678);
  EXPECT_DOUBLE_EQ(j.at("ttft_ms").get<double>(), 50.000001);  // 1052345679 - 1002345678 ns
  EXPECT_DOUBLE_EQ(j.at("e2e_ms").get<double>(), 250.000002);
  EXPECT_DOUBLE_EQ(j.at("tpot_ms").get<double>(), 200.000001 / 4);
  EXPECT_EQ(j.at("output_tokens_source"), "usage");
  EXPECT_EQ(j.at("itl_ms").size(), 4u);
}

TEST(RequestJsonl, NullsForUndefined) {
  RequestRecord r;
  r.id = 7;
  r.error_class = ErrorClass::connect_error;
  r.error = "connection refused";
  r.t_sched_ns = 5'000'000;
  r.t_end_ns = 6'000'000;
  std::string line;
  append_request_jsonl(line, r);
  const json j = json::parse(line);
  EXPECT_EQ(j.at("ok"), false);
  EXPECT_EQ(j.at("error_class"), "connect_error");
  for (const char* k :
       {"t_send_s", "ttft_ms", "ttft_content_ms", "tpot_ms", "e2e_ms", "scheduled_e2e_ms",
        "dispatch_delay_ms", "output_tokens_alt", "output_tokens_alt_source"})
    EXPECT_TRUE(j.at(k).is_null()) << k;
  EXPECT_TRUE(j.at("itl_ms").is_array());
  EXPECT_TRUE(j.at("itl_ms").empty());
  expect_same(parse_request_jsonl(line), r);
}

TEST(RequestJsonl, RoundTrip) {
  const RequestRecord r = full_record();
  std::string line;
  append_request_jsonl(line, r);
  expect_same(parse_request_jsonl(line), r);
}

TEST(RequestJsonl, RoundTripLongRunAndErrorBody) {
  RequestRecord r = full_record();
  const int64_t hours10 = int64_t{36'000} * 1'000'000'000;
  for (int64_t* t : {&r.t_sched_ns, &r.t_send_ns, &r.t_first_ns, &r.t_first_content_ns,
                     &r.t_last_ns, &r.t_end_ns})
    *t += hours10 + 987'654'321;
  r.warmup = true;
  r.status = 503;
  r.error_class = ErrorClass::overloaded;
  r.error = "{\"error\":\"busy\"}\n\tline2 \\ \x01 caf\xC3\xA9";
  std::string line;
  append_request_jsonl(line, r);
  expect_same(parse_request_jsonl(line), r);
}

TEST(RequestJsonl, InvalidUtf8ErrorIsReplacedNotLost) {
  RequestRecord r;
  r.error_class = ErrorClass::server_error;
  r.error = "bad \xFF\xFE body";
  std::string line;
  append_request_jsonl(line, r);
  EXPECT_EQ(parse_request_jsonl(line).error, "bad \xEF\xBF\xBD\xEF\xBF\xBD body");
}

TEST(RequestJsonl, EveryErrorClassRoundTripsByName) {
  for (size_t c = 0; c < kErrorClassNames.size(); ++c) {
    RequestRecord r = full_record();
    r.error_class = static_cast<ErrorClass>(c);
    std::string line;
    append_request_jsonl(line, r);
    EXPECT_EQ(json::parse(line).at("error_class").get<std::string>(), kErrorClassNames[c]);
    EXPECT_EQ(parse_request_jsonl(line).error_class, r.error_class) << kErrorClassNames[c];
  }
  EXPECT_EQ(error_class_from_string("abandoned"), ErrorClass::abandoned);
}

TEST(RequestJsonl, ParseErrors) {
  EXPECT_THROW(parse_request_jsonl("not json"), Error);
  EXPECT_THROW(parse_request_jsonl("[1,2]"), Error);
  EXPECT_THROW(parse_request_jsonl(R"({"id":"x"})"), Error);
  EXPECT_THROW(parse_request_jsonl(R"({"error_class":"nope"})"), Error);
  EXPECT_THROW(parse_request_jsonl(R"({"output_tokens_source":"magic"})"), Error);
  EXPECT_THROW(parse_request_jsonl(R"({"t_send_s":"soon"})"), Error);
  const RequestRecord r = parse_request_jsonl(R"({"id":3})");  // missing fields: defaults
  EXPECT_EQ(r.id, 3u);
  EXPECT_EQ(r.t_send_ns, kNoTime);
  EXPECT_TRUE(r.ok());
}

// A line cut anywhere (a kill mid-write) never reads back as a record: every proper prefix of a
// whole line is refused, whatever field the cut falls in.
TEST(RequestJsonl, EveryCutLineIsRefused) {
  RequestRecord r = full_record();
  r.server.queue_ms = 7;
  r.server.source = sb::ServerTimingSource::tgi_headers;
  std::string line;
  append_request_jsonl(line, r);
  line.pop_back();  // the '\n'
  ASSERT_NO_THROW(parse_request_jsonl(line));
  for (size_t n = 0; n < line.size(); ++n)
    EXPECT_THROW(parse_request_jsonl(line.substr(0, n)), Error)
        << "cut at " << n << ": " << line.substr(0, n);
}

TEST(RequestJsonl, TypesAndRangesAreChecked) {
  EXPECT_THROW(parse_request_jsonl(R"({"id":1.5})"), Error);             // not an integer
  EXPECT_THROW(parse_request_jsonl(R"({"id":-1})"), Error);              // out of range
  EXPECT_THROW(parse_request_jsonl(R"({"status":4294967296})"), Error);  // over int
  EXPECT_THROW(parse_request_jsonl(R"({"turn":-2147483649})"), Error);   // under int32
  EXPECT_THROW(parse_request_jsonl(R"({"warmup":1})"), Error);           // not a boolean
  EXPECT_THROW(parse_request_jsonl(R"({"class":7})"), Error);            // not a string
  EXPECT_THROW(parse_request_jsonl(R"({"itl_ms":3})"), Error);           // not an array
  EXPECT_THROW(parse_request_jsonl(R"({"ttfb_ms":"fast"})"), Error);     // not a number
  EXPECT_THROW(parse_request_jsonl(R"({"server_timing_source":"x"})"), Error);
  EXPECT_THROW(parse_request_jsonl(R"({"t_send_s":1e300})"), Error);  // over ~31 years
  EXPECT_THROW(parse_request_jsonl(R"({"id":1} {"id":2})"), Error);   // two objects
  EXPECT_EQ(parse_request_jsonl(R"({"id":18446744073709551615})").id, UINT64_MAX);
  EXPECT_EQ(parse_request_jsonl(R"({"turn":-1,"session_id":null})").turn, -1);
  // Escaped strings come back unescaped; unknown fields of any shape are skipped.
  const RequestRecord r = parse_request_jsonl(
      R"({"id":2,"extra":{"a":[1,{"b":null}]},"class":"c\"h\u00e9","itl_ms":[1.5,null,2e39]})");
  EXPECT_EQ(r.request_class, "c\"h\xc3\xa9");
  ASSERT_EQ(r.itl_ms.size(), 3u);
  EXPECT_EQ(r.itl_ms[0], 1.5f);
  EXPECT_TRUE(std::isnan(r.itl_ms[1]));  // not a number: kept as a gap of unknown length
  EXPECT_TRUE(std::isnan(r.itl_ms[2]));  // beyond float
}

}  // namespace
}  // namespace sb::results
