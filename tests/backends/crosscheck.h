#pragma once
// Compares what servebench measured (requests.jsonl) with what the backend logged about the
// same requests (its --timing-log): token counts exactly, timings within a stated tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::testing {

// --- Timing tolerance -------------------------------------------------------------------------
// The two sides time one request from different vantage points:
//   client (servebench): from t_send (the request's first byte written) to the arrival of the
//     bytes of the first / last token event (ttft_ms, e2e_ms); whole responses: to the body.
//   server (timing log):  from `arrival` (request line and headers parsed, handler entered) to
//     the first / last token event handed to the socket; whole responses: to the body handed
//     over (`done`).
// The client's span holds the server's plus loopback transfer and HTTP parsing on both sides,
// about 0.1-2 ms on an idle machine. Each side reads its clock around its own write/read, so
// thread scheduling can shift either reading: on a 2-core CI runner running tests in parallel
// (and with Python's GIL shared by the HTTP thread and the model thread) a stall of tens of ms
// happens now and then. Hence:
//   - every request: client - server within [-kSlackMs, +kSlackMs] (100 ms: one stall);
//   - the median over a run's requests: within [-kMedianEarlyMs, +kMedianLateMs] = [-3, +30] ms
//     (the typical overhead must be small and the client must not read early: a real
//     measurement error, e.g. timing from the wrong event, shows as a shift of the median).
//   - streams: the generation interval, client (e2e - ttft) against server (last - first), with
//     the same bounds (both ends are token events: transport overheads cancel).
// Under sanitizers (SERVEBENCH_SANITIZED=1) the client runs several times slower: bounds x4.
inline double tolerance_scale() {
  const char* s = std::getenv("SERVEBENCH_SANITIZED");
  return s && std::string(s) == "1" ? 4.0 : 1.0;
}
inline constexpr double kSlackMs = 100;
inline constexpr double kMedianEarlyMs = 3;
inline constexpr double kMedianLateMs = 30;

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline void expect_within(const std::vector<double>& diffs, const std::string& what) {
  const double k = tolerance_scale();
  for (size_t i = 0; i < diffs.size(); ++i) {
    EXPECT_GE(diffs[i], -kSlackMs * k) << what << " request " << i;
    EXPECT_LE(diffs[i], kSlackMs * k) << what << " request " << i;
  }
  const double m = median(diffs);
  EXPECT_GE(m, -kMedianEarlyMs * k) << what << ": median client - server difference";
  EXPECT_LE(m, kMedianLateMs * k) << what << ": median client - server difference";
}

// `client`: requests.jsonl records sorted by send time; `server`: the timing-log lines of the
// same run. With concurrency 1 (`paired`) the i-th client request is the i-th server request:
// token counts and timings are compared per request. Otherwise counts are compared as sorted
// lists and timings are not compared.
inline void check_against_server(const std::vector<nlohmann::json>& client,
                                 const std::vector<nlohmann::json>& server, bool stream,
                                 int64_t expected_tokens, const std::string& token_source,
                                 bool paired, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(client.size(), server.size()) << "every request the client sent is in the server log";
  std::vector<int64_t> client_tokens, server_tokens;
  std::vector<double> d_ttft, d_e2e, d_gen;
  for (size_t i = 0; i < client.size(); ++i) {
    const auto& c = client[i];
    const auto& s = server[i];
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    EXPECT_EQ(c["status"], 200) << c.dump();
    EXPECT_EQ(s["status"], 200) << s.dump();
    EXPECT_EQ(s["stream"].get<bool>(), stream) << s.dump();
    EXPECT_EQ(c["output_tokens_source"], token_source) << c.dump();
    EXPECT_EQ(c["output_tokens"], expected_tokens) << c.dump();
    EXPECT_EQ(s["generated_tokens"], expected_tokens) << s.dump();
    client_tokens.push_back(c["output_tokens"].get<int64_t>());
    server_tokens.push_back(s["generated_tokens"].get<int64_t>());
    if (c["ttft_ms"].is_null() || c["e2e_ms"].is_null()) {
      ADD_FAILURE() << "no ttft/e2e: " << c.dump();
      continue;
    }
    const double ttft = c["ttft_ms"].get<double>(), e2e = c["e2e_ms"].get<double>();
    if (stream) {
      EXPECT_LT(ttft, e2e) << c.dump();  // several token events: the first precedes the last
    } else {
      EXPECT_LE(ttft, e2e) << c.dump();  // one body: its first text is its last
    }
    // The server's own timeline is ordered.
    const double arrival = s["arrival_mono_s"], start = s["start_mono_s"],
                 first = s["first_token_mono_s"], last = s["last_token_mono_s"],
                 done = s["done_mono_s"];
    EXPECT_LE(arrival, start);
    EXPECT_LE(start, first);
    EXPECT_LE(first, last);
    EXPECT_LE(last, done);
    if (!paired) continue;
    if (stream) {
      d_ttft.push_back(ttft - (first - arrival) * 1e3);
      d_e2e.push_back(e2e - (last - arrival) * 1e3);
      d_gen.push_back((e2e - ttft) - (last - first) * 1e3);
    } else {
      d_e2e.push_back(e2e - (done - arrival) * 1e3);
    }
  }
  std::sort(client_tokens.begin(), client_tokens.end());
  std::sort(server_tokens.begin(), server_tokens.end());
  EXPECT_EQ(client_tokens, server_tokens);
  if (!paired) return;
  if (stream) {
    expect_within(d_ttft, "ttft (client) - first token (server)");
    expect_within(d_gen, "(e2e - ttft) (client) - (last - first token) (server)");
  }
  expect_within(d_e2e, stream ? "e2e (client) - last token (server)"
                              : "e2e (client) - response done (server)");
}

}  // namespace sb::testing
