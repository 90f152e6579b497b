// What report and compare keep of a run's records (report/request_samples.h): the measured ok
// requests' metrics, flattened gaps, completions by end time, texts only when saved; and the
// loader gathering them from a requests.jsonl written out of id order.
#include "report/request_samples.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "report/run_folder.h"
#include "run_folder_fixture.h"

namespace sb::report {
namespace {

using testing::synthetic_info;
using testing::synthetic_records;
using testing::temp_folder;
using testing::write_run;

metrics::RequestRecord record(uint64_t id, int64_t send_ms, int64_t end_ms,
                              std::vector<float> itl) {
  metrics::RequestRecord r;
  r.id = id;
  r.t_sched_ns = r.t_send_ns = send_ms * 1000000;
  r.t_first_ns = r.t_first_content_ns = (send_ms + 10) * 1000000;
  r.t_last_ns = r.t_end_ns = end_ms * 1000000;
  r.output_tokens = static_cast<int64_t>(itl.size()) + 1;
  r.itl_ms = std::move(itl);
  r.output_text = "text " + std::to_string(id);
  return r;
}

TEST(RequestSamples, KeepsTheMeasuredOkRequestsMetricsAndTheirGapsPerRequest) {
  RequestSamples s;
  auto warm = record(0, 0, 500, {1, 2});
  warm.warmup = true;
  auto failed = record(2, 5, 60, {7});
  failed.error_class = ErrorClass::overloaded;
  auto single = record(3, 30, 40, {});  // one token: no TPOT, no gaps
  for (const auto& r : {warm, record(1, 20, 100, {3, 4, 5}), failed, single,
                        record(4, 40, 90, {6, std::numeric_limits<float>::quiet_NaN()})})
    s.add(r, {.outputs = true});
  s.finish();
  EXPECT_EQ(s.measured, 4);
  EXPECT_EQ(s.ok, 3);
  EXPECT_EQ(s.first_send_ns, 5'000'000);  // the failed request's send counts (warm-up's not)
  EXPECT_EQ(s.ttft_ms, (std::vector<double>{10, 10, 10}));
  EXPECT_EQ(s.e2e_ms, (std::vector<double>{80, 10, 50}));
  ASSERT_EQ(s.tpot_ms.size(), 2u);  // (80 - 10) / 3 and (50 - 10) / 2
  EXPECT_DOUBLE_EQ(s.tpot_ms[0], 70.0 / 3);
  EXPECT_DOUBLE_EQ(s.tpot_ms[1], 20);
  EXPECT_EQ(s.itl_ms, (std::vector<float>{3, 4, 5, 6}));  // the NaN gap dropped
  EXPECT_EQ(s.itl_begin, (std::vector<uint64_t>{0, 3, 4}));
  EXPECT_EQ(s.itl_requests(), 2u);
  ASSERT_EQ(s.completions.size(), 3u);  // by end: 3 (40), 4 (90), 1 (100)
  EXPECT_EQ(s.completions[0].t_end_ns, 40'000'000);
  EXPECT_EQ(s.completions[1].t_end_ns, 90'000'000);
  EXPECT_EQ(s.completions[2].output_tokens, 4);
  const std::vector<double> gaps = s.completion_gaps_s();  // from the first send, 5 ms
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_DOUBLE_EQ(gaps[0], 0.035);
  EXPECT_DOUBLE_EQ(gaps[1], 0.050);
  EXPECT_DOUBLE_EQ(gaps[2], 0.010);
  ASSERT_EQ(s.outputs.size(), 4u);  // measured ones, failed included (reported unpaired)
  EXPECT_FALSE(s.outputs[1].ok);
  EXPECT_EQ(s.output_views()[0].text, "text 1");
}

TEST(RequestSamples, TheLoaderGathersWhatTheRecordsHoldAndTextsOnlyWhenSaved) {
  // Records in completion order (as a run writes them), a warm-up and a failure among them.
  std::vector<metrics::RequestRecord> records = synthetic_records(300, 7, 1.0);
  records[0].warmup = records[1].warmup = true;
  records[10].error_class = ErrorClass::timeout;
  for (auto& r : records) r.output_text = "answer " + std::to_string(r.id);
  std::vector<metrics::RequestRecord> written = records;
  std::stable_sort(written.begin(), written.end(),
                   [](const auto& a, const auto& b) { return a.t_end_ns < b.t_end_ns; });
  const auto d = temp_folder("samples");
  auto info = synthetic_info(4);
  write_run(d / "plain", written, info);
  info.config["save_outputs"] = true;
  write_run(d / "saved", written, info);

  RequestSamples expected;
  for (const auto& r : records) expected.add(r, {.outputs = true});  // in id order
  expected.finish();
  const RunData plain = load_run_folder((d / "plain").string());
  const RunData saved = load_run_folder((d / "saved").string());
  for (const RunData* run : {&plain, &saved}) {
    const RequestSamples& s = run->samples;
    EXPECT_EQ(s.measured, 298);
    EXPECT_EQ(s.ok, 297);
    EXPECT_EQ(s.first_send_ns, expected.first_send_ns);
    ASSERT_EQ(s.e2e_ms.size(), expected.e2e_ms.size());
    for (size_t i = 0; i < s.e2e_ms.size(); ++i)  // the log keeps microseconds
      EXPECT_NEAR(s.e2e_ms[i], expected.e2e_ms[i], 1e-3) << i;
    EXPECT_EQ(s.ttft_ms.size(), 297u);
    EXPECT_EQ(s.tpot_ms.size(), 297u);
    EXPECT_EQ(s.itl_begin, expected.itl_begin);
    ASSERT_EQ(s.completions.size(), expected.completions.size());
    for (size_t i = 0; i < s.completions.size(); ++i)
      EXPECT_NEAR(static_cast<double>(s.completions[i].t_end_ns),
                  static_cast<double>(expected.completions[i].t_end_ns), 1e3)
          << i;
  }
  EXPECT_TRUE(plain.samples.outputs.empty());
  // Without the gaps (a plan's comparison table): the same latencies and completions.
  const RunData no_gaps = load_run_folder((d / "plain").string(), "", {.inter_token_gaps = false});
  EXPECT_GT(plain.samples.itl_ms.size(), 1000u);
  EXPECT_TRUE(no_gaps.samples.itl_ms.empty());
  EXPECT_EQ(no_gaps.samples.itl_requests(), 0u);
  EXPECT_EQ(no_gaps.samples.e2e_ms, plain.samples.e2e_ms);
  EXPECT_EQ(no_gaps.samples.tpot_ms, plain.samples.tpot_ms);
  EXPECT_EQ(no_gaps.samples.completions.size(), plain.samples.completions.size());
  // Nor the summary's time series (kept typed in the view only): the same summary otherwise.
  const RunData lean = load_run_folder((d / "plain").string(), "",
                                       {.inter_token_gaps = false, .time_series = false});
  ASSERT_FALSE(plain.view.timeseries.empty());
  EXPECT_FALSE(plain.summary.contains("timeseries"));
  EXPECT_TRUE(lean.view.timeseries.empty());
  EXPECT_EQ(lean.summary, plain.summary);
  EXPECT_EQ(lean.view.metrics.e2e_ms.p50, plain.view.metrics.e2e_ms.p50);
  EXPECT_EQ(lean.samples.e2e_ms, no_gaps.samples.e2e_ms);
  ASSERT_EQ(saved.samples.outputs.size(), 298u);
  EXPECT_EQ(saved.samples.outputs[0].text, "answer 2");
  EXPECT_EQ(saved.samples.outputs[0].id, 2u);
  EXPECT_FALSE(saved.samples.outputs[8].ok);  // id 10
}

}  // namespace
}  // namespace sb::report
