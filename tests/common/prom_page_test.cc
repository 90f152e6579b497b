#include "common/prom_page.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace sb {
namespace {

// Fills the page the way the simulator does: a gauge, a counter with labels, a histogram.
void fill(PromPage& page, double queue, uint64_t bucket0, const std::string& model) {
  const std::vector<std::string> le = {"0.5", "1"};
  const std::vector<uint64_t> counts = {bucket0, 2, 1};
  const Labels labels = {{"model_name", model}};
  PromPageFill p(page);
  p.family("queue", PromType::gauge, "Requests waiting.");
  p.sample("queue", {}, queue);
  p.family("latency_seconds", PromType::histogram);
  p.histogram("latency_seconds", labels, le, counts, 4.25);
}

TEST(PromPage, AFillWritesCumulativeBucketsWithLeAndTheSumAndCount) {
  PromPage page;
  fill(page, 3, 5, "m");
  ASSERT_EQ(page.samples.size(), 6u);
  EXPECT_EQ(page.samples[0], (PromSample{"queue", {}, 3, {}}));
  EXPECT_EQ(page.samples[1],
            (PromSample{"latency_seconds_bucket", {{"model_name", "m"}, {"le", "0.5"}}, 5, {}}));
  EXPECT_EQ(page.samples[2].value, 7);
  EXPECT_EQ(page.samples[3],
            (PromSample{"latency_seconds_bucket", {{"model_name", "m"}, {"le", "+Inf"}}, 8, {}}));
  EXPECT_EQ(page.samples[4], (PromSample{"latency_seconds_sum", {{"model_name", "m"}}, 4.25, {}}));
  EXPECT_EQ(page.samples[5], (PromSample{"latency_seconds_count", {{"model_name", "m"}}, 8, {}}));
  EXPECT_EQ(page.types.at("latency_seconds"), PromType::histogram);
  EXPECT_EQ(page.help.at("queue"), "Requests waiting.");
  EXPECT_EQ(page.family_of("latency_seconds_bucket").first, "latency_seconds");
}

TEST(PromPage, ARefillReusesTheSamplesStorageAndDropsWhatItNoLongerWrites) {
  const std::string model = "a-model-name-longer-than-the-small-string-buffer";
  PromPage page;
  fill(page, 3, 5, model);
  const char* name = page.samples[1].name.data();
  const char* value = page.samples[1].labels[0].second.data();
  const auto* labels = page.samples[1].labels.data();
  fill(page, 4, 6, model);
  EXPECT_EQ(page.samples[0].value, 4);
  EXPECT_EQ(page.samples[1].value, 6);
  EXPECT_EQ(page.samples[1].name.data(), name);  // no string or vector was made again
  EXPECT_EQ(page.samples[1].labels[0].second.data(), value);
  EXPECT_EQ(page.samples[1].labels.data(), labels);
  {
    PromPageFill p(page);
    p.sample("only", {}, 1);
  }
  ASSERT_EQ(page.samples.size(), 1u);
  EXPECT_EQ(page.samples[0], (PromSample{"only", {}, 1, {}}));
}

TEST(PromPage, ALayoutIdChangesExactlyWhenAFillChangesNamesLabelsCountOrTypes) {
  PromPage page;
  EXPECT_EQ(page.layout_id, 0u);  // as parsed: no promise
  fill(page, 3, 5, "m");
  const uint64_t first = page.layout_id;
  EXPECT_NE(first, 0u);
  fill(page, 4, 9, "m");  // new values only
  EXPECT_EQ(page.layout_id, first);
  PromPage copy = page;  // the same layout, the same id; a fill that changes it takes its own
  fill(copy, 4, 9, "copied");
  EXPECT_NE(copy.layout_id, first);
  EXPECT_EQ(page.layout_id, first);
  fill(page, 4, 9, "other");  // a label value
  const uint64_t relabelled = page.layout_id;
  EXPECT_NE(relabelled, first);
  fill(page, 4, 9, "m");  // back: a layout of its own again, never an old id
  EXPECT_NE(page.layout_id, relabelled);
  EXPECT_NE(page.layout_id, first);
  const uint64_t back = page.layout_id;
  {
    PromPageFill p(page);  // a type changes, nothing else
    p.family("queue", PromType::counter, "Requests waiting.");
    p.sample("queue", {}, 3);
    p.family("latency_seconds", PromType::histogram);
    p.histogram("latency_seconds", {{"model_name", "m"}}, std::vector<std::string>{"0.5", "1"},
                std::vector<uint64_t>{1, 2, 1}, 4.25);
  }
  EXPECT_NE(page.layout_id, back);
  const uint64_t typed = page.layout_id;
  {
    PromPageFill p(page);  // fewer samples
    p.sample("queue", {}, 3);
  }
  EXPECT_NE(page.layout_id, typed);
  PromPage other;
  fill(other, 3, 5, "m");
  EXPECT_NE(other.layout_id, page.layout_id);  // ids are unique across pages
}

TEST(PromPage, TextHasEachFamilysHelpAndTypeBeforeItsFirstSample) {
  PromPage page;
  fill(page, 3, 5, "a \"quoted\"\\name");
  page.samples[0].timestamp_ms = 1700000000000;
  EXPECT_EQ(prom_text_of(page),
            "# HELP queue Requests waiting.\n"
            "# TYPE queue gauge\n"
            "queue 3 1700000000000\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{model_name=\"a \\\"quoted\\\"\\\\name\",le=\"0.5\"} 5\n"
            "latency_seconds_bucket{model_name=\"a \\\"quoted\\\"\\\\name\",le=\"1\"} 7\n"
            "latency_seconds_bucket{model_name=\"a \\\"quoted\\\"\\\\name\",le=\"+Inf\"} 8\n"
            "latency_seconds_sum{model_name=\"a \\\"quoted\\\"\\\\name\"} 4.25\n"
            "latency_seconds_count{model_name=\"a \\\"quoted\\\"\\\\name\"} 8\n");
}

TEST(PromPage, HelpTextEscapesBackslashesAndLineEndsButNotQuotes) {
  PromPage page;
  page.samples.push_back({"g", {}, 1, {}});
  page.help["g"] = "a \\ b\n\"c\"";
  EXPECT_EQ(prom_text_of(page), "# HELP g a \\\\ b\\n\"c\"\ng 1\n");
}

TEST(PromPage, AFamilyWhoseSamplesAreApartIsDescribedOnce) {
  // Prometheus's own parser refuses a second TYPE line for a name.
  PromPage page;
  page.types["a"] = PromType::gauge;
  page.types["b"] = PromType::gauge;
  page.samples = {{"a", {{"x", "1"}}, 1, {}}, {"b", {}, 2, {}}, {"a", {{"x", "2"}}, 3, {}}};
  EXPECT_EQ(prom_text_of(page),
            "# TYPE a gauge\na{x=\"1\"} 1\n# TYPE b gauge\nb 2\na{x=\"2\"} 3\n");
}

TEST(PromPage, TextWritesNonFiniteValuesAsPrometheusDoes) {
  PromPage page;
  for (double v :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), 0.1})
    page.samples.push_back({"v", {}, v, {}});
  EXPECT_EQ(prom_text_of(page), "v NaN\nv +Inf\nv -Inf\nv 0.1\n");
}

}  // namespace
}  // namespace sb
