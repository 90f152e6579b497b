// Quality in the output contract: per-request scores and statistics in requests.jsonl (and
// back, so `summarize` rebuilds corpus scores), corpus scores per run and per class in
// summary.json, the response text only when it was kept (--save-outputs).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "metrics/run_summary.h"
#include "quality/request_quality.h"
#include "results/request_jsonl.h"
#include "results/summary_json.h"

namespace sb::quality {
namespace {

metrics::RequestRecord scored(uint64_t id, std::string cls, std::string_view hyp,
                              std::string_view ref) {
  metrics::RequestRecord r;
  r.id = id;
  r.request_class = std::move(cls);
  r.t_sched_ns = r.t_send_ns = 0;
  r.t_first_ns = 1'000'000;
  r.t_last_ns = r.t_end_ns = 5'000'000;
  r.output_tokens = 4;
  r.quality = std::make_shared<const RequestQuality>(score_request(hyp, ref));
  return r;
}

TEST(QualityWiring, RequestsJsonlRoundTrip) {
  metrics::RequestRecord r = scored(7, "chat", "The dog bit the man.", "The dog bit a man.");
  std::string line;
  results::append_request_jsonl(line, r);
  EXPECT_EQ(line.find("\"output\""), std::string::npos);  // no text unless kept
  const auto j = nlohmann::json::parse(line);
  ASSERT_TRUE(j.contains("quality"));
  EXPECT_DOUBLE_EQ(j["quality"]["bleu"].get<double>(), r.quality->bleu);
  EXPECT_EQ(j["quality"]["bleu_stats"].size(), 10u);
  EXPECT_EQ(j["quality"]["chrf_stats"].size(), 18u);

  const metrics::RequestRecord back = results::parse_request_jsonl(line);
  ASSERT_TRUE(back.quality);
  EXPECT_EQ(back.quality->bleu_stats.correct, r.quality->bleu_stats.correct);
  EXPECT_EQ(back.quality->chrf_stats.match, r.quality->chrf_stats.match);
  std::string again;
  results::append_request_jsonl(again, back);
  EXPECT_EQ(again, line);

  r.output_text = "línea 1\n\"dos\" 日本";
  line.clear();
  results::append_request_jsonl(line, r);
  EXPECT_EQ(results::parse_request_jsonl(line).output_text, r.output_text);

  EXPECT_THROW(results::parse_request_jsonl(R"({"id":1,"quality":{"bleu_stats":[1,2]}})"),
               sb::Error);
}

TEST(QualityWiring, SummaryPerRunAndPerClass) {
  std::vector<metrics::RequestRecord> records = {
      scored(0, "chat", "The dog bit the man.", "The dog bit the man."),
      scored(1, "chat", "It wasn't surprising.", "It was not unexpected."),
      scored(2, "long", "The man had just bitten him.", "The man bit him first.")};
  records.push_back(records[0]);
  records.back().id = 3;
  records.back().quality = nullptr;  // no reference: not scored
  metrics::RequestRecord warm = scored(4, "chat", "x", "y");
  warm.warmup = true;  // warm-up: not measured, not scored
  records.push_back(warm);

  metrics::RunInfo info;
  const metrics::RunSummary s = metrics::summarize_run(records, info);
  ASSERT_TRUE(s.quality);
  QualityTotals t;
  for (int i = 0; i < 3; ++i) t.add(*records[static_cast<size_t>(i)].quality);
  EXPECT_EQ(s.quality->scored, 3);
  EXPECT_DOUBLE_EQ(s.quality->bleu, t.corpus()->bleu);
  EXPECT_NEAR(s.quality->exact_match, 1.0 / 3, 1e-12);
  ASSERT_TRUE(s.classes.at("long").quality);
  EXPECT_EQ(s.classes.at("long").quality->scored, 1);

  const auto j = results::summary_to_json(s, info);
  ASSERT_TRUE(j.contains("quality"));
  for (const char* k : {"bleu", "chrf", "rouge_l", "exact_match", "scored"})
    EXPECT_TRUE(j["quality"].contains(k)) << k;
  EXPECT_EQ(j["classes"]["chat"]["quality"]["scored"], 2);

  // Without references there is no quality object at all.
  records[0].quality = records[1].quality = records[2].quality = nullptr;
  EXPECT_FALSE(
      results::summary_to_json(metrics::summarize_run(records, info), info).contains("quality"));
}

}  // namespace
}  // namespace sb::quality
