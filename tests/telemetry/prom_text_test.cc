#include "telemetry/prom_text.h"

#include <cmath>

#include <gtest/gtest.h>

namespace sb::telemetry {
namespace {

const char* kPage =
    "# HELP http_requests_total The total number of HTTP requests.\n"
    "# TYPE http_requests_total counter\n"
    "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
    "http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n"
    "\n"
    "# Escaping in label values:\n"
    "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
    "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n"
    "# Minimalistic line:\n"
    "metric_without_timestamp_and_labels 12.47\n"
    "# A weird metric from before the epoch:\n"
    "something_weird{problem=\"division by zero\"} +Inf -3982045\n"
    "neg_inf -Inf\n"
    "not_a_number NaN\n"
    "# HELP help_with_escapes Two \\\\ back\\nslashes\n"
    "# TYPE http_request_duration_seconds histogram\n"
    "http_request_duration_seconds_bucket{le=\"0.05\"} 24054\n"
    "http_request_duration_seconds_bucket{le=\"0.1\"} 33444\n"
    "http_request_duration_seconds_bucket{le=\"+Inf\"} 144320\n"
    "http_request_duration_seconds_sum 53423\n"
    "http_request_duration_seconds_count 144320\r\n"
    "# TYPE rpc_duration_seconds summary\n"
    "rpc_duration_seconds{quantile=\"0.5\"} 4773\n"
    "rpc_duration_seconds{quantile=\"0.99\"} 76656\n"
    "rpc_duration_seconds_sum 1.7560473e+07\n"
    "rpc_duration_seconds_count 2693\n"
    "vllm:num_requests_running{model_name=\"m,{x}\",} 3\n"
    "untyped_total 5";  // no final newline

TEST(PromText, ParsesTheFormatsEdgeCases) {
  const PromPage p = parse_prom_text(kPage);
  EXPECT_EQ(p.bad_lines, 0) << (p.errors.empty() ? "" : p.errors[0]);
  ASSERT_EQ(p.samples.size(), 18u);
  EXPECT_EQ(p.samples[0].name, "http_requests_total");
  EXPECT_EQ(label(p.samples[0].labels, "code"), "200");
  EXPECT_EQ(p.samples[0].value, 1027);
  EXPECT_EQ(p.samples[0].timestamp_ms, 1395066363000);
  EXPECT_EQ(p.samples[1].value, 3);
  EXPECT_EQ(label(p.samples[2].labels, "path"), "C:\\DIR\\FILE.TXT");
  EXPECT_EQ(label(p.samples[2].labels, "error"), "Cannot find file:\n\"FILE.TXT\"");
  EXPECT_DOUBLE_EQ(p.samples[2].value, 1.458255915e9);
  EXPECT_TRUE(std::isinf(p.samples[4].value) && p.samples[4].value > 0);
  EXPECT_EQ(p.samples[4].timestamp_ms, -3982045);
  EXPECT_TRUE(std::isinf(p.samples[5].value) && p.samples[5].value < 0);
  EXPECT_TRUE(std::isnan(p.samples[6].value));
  EXPECT_EQ(p.help.at("help_with_escapes"), "Two \\ back\nslashes");
  EXPECT_EQ(p.family_of("http_request_duration_seconds_bucket").second, PromType::histogram);
  EXPECT_EQ(p.family_of("http_request_duration_seconds_count").first,
            "http_request_duration_seconds");
  EXPECT_EQ(p.family_of("rpc_duration_seconds_sum").second, PromType::summary);
  EXPECT_EQ(p.family_of("http_requests_total").second, PromType::counter);
  EXPECT_EQ(p.family_of("metric_without_timestamp_and_labels").second, PromType::untyped);
  EXPECT_EQ(p.samples[11].value, 144320);  // the CRLF line
  EXPECT_EQ(label(p.samples[16].labels, "model_name"), "m,{x}");
  EXPECT_EQ(p.samples[17].name, "untyped_total");
}

TEST(PromText, SameResultAtEverySplit) {
  const std::string text = kPage;
  const PromPage whole = parse_prom_text(text);
  for (size_t i = 0; i <= text.size(); ++i) {
    PromParser p;
    p.feed(std::string_view(text).substr(0, i));
    p.feed(std::string_view(text).substr(i));
    p.finish();
    ASSERT_EQ(p.page().samples, whole.samples) << "split at " << i;
    ASSERT_EQ(p.page().types, whole.types) << "split at " << i;
  }
  PromParser bytewise;  // one byte at a time
  for (char c : text) bytewise.feed(std::string_view(&c, 1));
  bytewise.finish();
  EXPECT_EQ(bytewise.page().samples, whole.samples);
}

TEST(PromText, BadLinesAreCountedNotFatal) {
  const PromPage p = parse_prom_text(
      "<html><body>oops</body></html>\n"
      "ok 1\n"
      "x{a=\"unterminated} 1\n"
      "y{a=\"1\"} notanumber\n"
      "z 1 12x\n"
      "# TYPE w weird\n");
  EXPECT_EQ(p.samples.size(), 1u);
  EXPECT_EQ(p.bad_lines, 5);
  EXPECT_FALSE(p.errors.empty());
}

TEST(PromText, SeriesKeySortsAndEscapes) {
  EXPECT_EQ(series_key("m", {{"b", "2"}, {"a", "x\"y"}}), "m{a=\"x\\\"y\",b=\"2\"}");
  EXPECT_EQ(series_key("m", {}), "m");
}

// The simulator serves its page as prom_text_of and hands it to a virtual run's ingestion as
// data: both views must be the same page.
TEST(PromText, TextOfAPageParsesBackToTheSamePage) {
  const PromPage page = parse_prom_text(kPage);
  const PromPage again = parse_prom_text(prom_text_of(page));
  EXPECT_EQ(again.bad_lines, 0);
  EXPECT_EQ(again.samples, page.samples);
  for (const PromSample& s : page.samples) {
    const auto [family, type] = page.family_of(s.name);
    EXPECT_EQ(again.family_of(s.name).second, type) << s.name;
    if (page.help.count(family)) {
      EXPECT_EQ(again.help.at(family), page.help.at(family));
    }
  }
}

}  // namespace
}  // namespace sb::telemetry
