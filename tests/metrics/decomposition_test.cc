// Where the time went (metrics/decomposition.h, server_histograms.h) and the client-health
// verdict (client_health.h), from hand-built records and telemetry blocks.
#include <gtest/gtest.h>

#include "metrics/decomposition.h"
#include "metrics/run_summary.h"
#include "metrics/server_histograms.h"
#include "test_records.h"

namespace sb::metrics {
namespace {

using testing::make_record;

RequestRecord tgi_record(uint64_t id, double queue, double inference, double total) {
  RequestRecord r =
      make_record(id, {.sched = 0, .send = 1, .first = 101, .last = 201, .end = 202}, 10);
  r.client.pool_wait_ms = 0.5f;
  r.client.write_ms = 0.1f;
  r.client.ttfb_ms = 200.f;
  r.client.reused = id % 2 == 0;
  r.client.connect_ms = r.client.reused ? -1.f : 0.2f;
  r.server = {.queue_ms = queue,
              .inference_ms = inference,
              .total_ms = total,
              .source = ServerTimingSource::tgi_headers};
  return r;
}

TEST(Decomposition, ServerTimesAndClientPhasesOfOkMeasuredRequests) {
  std::vector<RequestRecord> recs = {tgi_record(0, 10, 180, 195), tgi_record(1, 30, 160, 195),
                                     tgi_record(2, 20, 170, 190)};
  recs.push_back(tgi_record(3, 999, 999, 999));
  recs.back().warmup = true;  // not measured
  recs.push_back(tgi_record(4, 999, 999, 999));
  recs.back().error_class = ErrorClass::server_error;  // not ok
  const Decomposition d = decompose(recs);
  EXPECT_EQ(d.requests, 3);
  EXPECT_EQ(d.server_reported, 3);
  EXPECT_EQ(d.server_source, "tgi_headers");
  EXPECT_DOUBLE_EQ(d.server_queue_ms.mean, 20);
  EXPECT_DOUBLE_EQ(d.server_inference_ms.mean, 170);
  EXPECT_EQ(d.server_prefill_ms.count, 0);  // TGI reports no prefill of its own
  // e2e 200 ms each; client + network = e2e - total: 5, 5, 10.
  EXPECT_EQ(d.client_network_ms.count, 3);
  EXPECT_NEAR(d.client_network_ms.mean, 20.0 / 3, 1e-9);
  EXPECT_EQ(d.reused, 2);            // ids 0 and 2
  EXPECT_EQ(d.connect_ms.count, 1);  // new connections only: id 1
  EXPECT_DOUBLE_EQ(d.ttfb_ms.p50, 200);
}

TEST(Decomposition, NoServerTimesLeavesTheServerSideEmpty) {
  const Decomposition d =
      decompose({make_record(0, {.send = 0, .first = 5, .last = 9, .end = 9}, 3)});
  EXPECT_EQ(d.requests, 1);
  EXPECT_EQ(d.server_source, "none");
  EXPECT_EQ(d.server_reported, 0);
  EXPECT_EQ(d.server_queue_ms.count, 0);
  EXPECT_EQ(d.client_network_ms.count, 0);
}

nlohmann::json histogram(const std::string& name, double count, double sum,
                         const std::string& model) {
  return {{"key", "server/" + name},           {"source", "server"}, {"name", name},
          {"labels", {{"model_name", model}}}, {"count", count},     {"sum", sum},
          {"buckets", nlohmann::json::array()}};
}

TEST(ServerHistograms, VllmMeansFromSumOverCountAddingLabelSets) {
  nlohmann::json t = {{"histograms",
                       {histogram("vllm:request_queue_time_seconds", 10, 1.0, "a"),
                        histogram("vllm:request_queue_time_seconds", 30, 1.0, "b"),
                        histogram("vllm:request_prefill_time_seconds", 40, 2.0, "a"),
                        histogram("vllm:request_decode_time_seconds", 40, 20.0, "a"),
                        histogram("tgi_request_queue_duration", 40, 99.0, "")}}};
  const ServerHistograms h = server_histograms(t);
  EXPECT_EQ(h.source, "vllm_metrics");  // vLLM's names win over TGI's
  ASSERT_TRUE(h.queue);
  EXPECT_DOUBLE_EQ(h.queue->count, 40);
  EXPECT_DOUBLE_EQ(h.queue->mean_ms, 50);  // 2 s over 40 requests
  EXPECT_DOUBLE_EQ(h.prefill->mean_ms, 50);
  EXPECT_DOUBLE_EQ(h.decode->mean_ms, 500);
  EXPECT_FALSE(h.inference);
}

TEST(ServerHistograms, TgiNamesAndNothing) {
  const ServerHistograms tgi =
      server_histograms({{"histograms",
                          {histogram("tgi_request_queue_duration", 4, 0.2, ""),
                           histogram("tgi_request_inference_duration", 4, 2.0, "")}}});
  EXPECT_EQ(tgi.source, "tgi_metrics");
  EXPECT_DOUBLE_EQ(tgi.queue->mean_ms, 50);
  EXPECT_DOUBLE_EQ(tgi.inference->mean_ms, 500);
  EXPECT_EQ(server_histograms(nullptr).source, "");
  EXPECT_EQ(server_histograms({{"histograms", nlohmann::json::array()}}).source, "");
  // A histogram that counted no request over the run gives no mean (no division by zero).
  EXPECT_EQ(
      server_histograms({{"histograms", {histogram("vllm:request_queue_time_seconds", 0, 0, "")}}})
          .source,
      "");
}

RunInfo info_with_loop(int64_t ticks, int64_t late, double max_ms) {
  RunInfo info;
  info.client_loop = {.workers = 2, .ticks = ticks, .late_ticks = late, .max_lag_ms = max_ms};
  return info;
}

TEST(ClientHealth, LateLoopTicksMakeTheRunClientLimited) {
  const std::vector<RequestRecord> recs = {
      make_record(0, {.sched = 0, .send = 0, .first = 5, .last = 9, .end = 9}, 3)};
  const RunSummary quiet = summarize_run(recs, info_with_loop(1000, 10, 1.5));
  EXPECT_FALSE(quiet.client_health.client_limited);  // 1% late: within 5%
  EXPECT_TRUE(quiet.client_health.reasons.empty());
  EXPECT_DOUBLE_EQ(*quiet.client_health.late_tick_share, 0.01);
  EXPECT_FALSE(quiet.client_health.cpu_bottleneck);  // no host telemetry: unknown

  const RunSummary busy = summarize_run(recs, info_with_loop(1000, 400, 48));
  EXPECT_TRUE(busy.client_health.client_limited);
  ASSERT_EQ(busy.client_health.reasons.size(), 1u);
  EXPECT_NE(busy.client_health.reasons[0].find("40.0% of their 10-ms ticks"), std::string::npos)
      << busy.client_health.reasons[0];
}

TEST(ClientHealth, ReadLagCpuAndLateOpenLoopSends) {
  std::vector<RequestRecord> recs;
  for (uint64_t i = 0; i < 10; ++i) {
    recs.push_back(make_record(
        i, {.sched = 0, .send = i < 5 ? 0.0 : 3.0, .first = 5, .last = 9, .end = 9}, 3));
    recs.back().client.read_lag_max_ms = i < 5 ? 0.05f : 8.0f;
  }
  RunInfo info = info_with_loop(100, 0, 0.2);
  info.load_mode = "open";
  info.target_rate = 50;
  info.telemetry = {{"client_bottleneck", true}, {"sources", {{{"kind", "host"}}}}};
  const ClientHealth h = summarize_run(recs, info).client_health;
  EXPECT_TRUE(h.client_limited);
  EXPECT_NEAR(*h.read_lag_p90_ms, 8.0, 1e-6);
  EXPECT_EQ(h.cpu_bottleneck, true);
  EXPECT_DOUBLE_EQ(*h.late_send_share, 0.5);  // 5 of 10 sends 3 ms late
  EXPECT_EQ(h.reasons.size(), 3u);
}

}  // namespace
}  // namespace sb::metrics
