#pragma once
// A small run for the report tests: two classes, one failure, one warm-up (times in ms).
#include <vector>

#include "../metrics/test_records.h"
#include "metrics/run_summary.h"

namespace sb::report::testing {

inline std::vector<metrics::RequestRecord> fixture_records() {
  using metrics::testing::make_record;
  using sb::ErrorClass;
  std::vector<metrics::RequestRecord> v;
  auto w = make_record(0, {0, 0, 10, 50, 50}, 3);
  w.warmup = true;
  v.push_back(w);
  auto r1 = make_record(1, {100, 100, 150, 350, 351}, 5);
  r1.request_class = "chat";
  r1.input_tokens = 10;
  r1.itl_ms = {50, 50, 50, 50};
  v.push_back(r1);
  auto r2 = make_record(2, {200, 203, 303, 503, 505}, 3);
  r2.request_class = "long";
  r2.input_tokens = 20;
  r2.itl_ms = {100, 100};
  v.push_back(r2);
  auto r3 = make_record(3, {300, 300.5, {}, {}, 1100}, 0, ErrorClass::server_error);
  r3.request_class = "long";
  r3.status = 500;
  v.push_back(r3);
  return v;
}

inline metrics::RunInfo fixture_info() {
  metrics::RunInfo i;
  i.tool_version = "0.1.0";
  i.config = {{"base_url", "http://localhost:8080"}, {"api_key", "<redacted>"}};
  i.host = {{"hostname", "test"}};
  i.started_at = "2026-12-02T13:00:00Z";
  i.duration_s = 1.5;
  i.load_mode = "closed";
  i.concurrency = 8;
  i.slo.ttft_ms = 200;
  i.bucket_interval_ms = 1000;
  return i;
}

}  // namespace sb::report::testing
