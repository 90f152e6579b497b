#pragma once
// Compares what servebench measured (requests.jsonl) with what the backend logged about the
// same requests (its --timing-log): token counts exactly, timings within a stated tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../support/timing_slack.h"

namespace sb::testing {

// --- Timing tolerance -------------------------------------------------------------------------
// The two sides time one request from different vantage points, on the same clock
// (CLOCK_MONOTONIC: steady_clock here, time.monotonic() there):
//   client (servebench): from t_send (read just before the request is written) to the arrival
//     of the bytes of the first / last token event (ttft_ms, e2e_ms); whole responses: the body.
//   server (timing log):  from `arrival` (request line and headers parsed, handler entered) to
//     the first / last token event handed to the socket (read just before the write); whole
//     responses: the body handed over (`done`).
// So each server interval lies inside the client's: client - server >= 0 always (causality;
// -1 ms allowed for rounding). The excess is loopback transfer and HTTP parsing on both sides
// (0.1-2 ms on an idle machine) plus thread scheduling: a reader that was not running when its
// bytes arrived (the client's event loop, Python's GIL shared by the HTTP and model threads)
// adds its wake-up delay, tens of ms on a busy 2-core runner. Hence, per run:
//   - every request: client - server in [-1 ms, kSlackMs x load];
//   - median over the run's requests: <= kMedianLateMs x load (the typical overhead is small;
//     a real measurement error, e.g. timing from the wrong event, shifts the median);
//   - streams: the generation interval, client (e2e - ttft) against server (last - first):
//     no sign guarantee (both ends are token events), |difference| <= the same bounds.
// load = max(1, 1-minute load average / cores) (capped at 8), x4 under sanitizers
// (SERVEBENCH_SANITIZED=1): scheduling delays grow with the run queue.
inline double tolerance_scale() {
  return testing::slack();  // tests/support/timing_slack.h
}
inline constexpr double kCausalMs = 1;
inline constexpr double kSlackMs = 100;
inline constexpr double kMedianLateMs = 30;

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `causal`: the client interval contains the server's (ttft, e2e); else a two-sided check.
inline void expect_within(const std::vector<double>& diffs, const std::string& what, bool causal) {
  const double k = tolerance_scale();
  for (size_t i = 0; i < diffs.size(); ++i) {
    EXPECT_GE(diffs[i], causal ? -kCausalMs : -kSlackMs * k) << what << " request " << i;
    EXPECT_LE(diffs[i], kSlackMs * k) << what << " request " << i << " (load x" << k << ")";
  }
  const double m = median(diffs);
  if (!causal) {
    EXPECT_GE(m, -kMedianLateMs * k) << what << ": median (load x" << k << ")";
  }
  EXPECT_LE(m, kMedianLateMs * k) << what << ": median (load x" << k << ")";
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
    expect_within(d_ttft, "ttft (client) - first token (server)", true);
    expect_within(d_gen, "(e2e - ttft) (client) - (last - first token) (server)", false);
  }
  expect_within(d_e2e,
                stream ? "e2e (client) - last token (server)" : "e2e (client) - response done (server)",
                true);
}

}  // namespace sb::testing
