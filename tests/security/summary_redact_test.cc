// The secrets of a run's configuration never reach summary.json (engine/config_json and
// results/summary_redact), nor a report of an older folder that has them.
#include "results/summary_redact.h"

#include <gtest/gtest.h>

#include "engine/config_json.h"
#include "net/url.h"
#include "results/summary_json.h"

namespace {

using nlohmann::json;

sb::engine::EngineConfig secret_config() {
  sb::engine::EngineConfig c;
  c.client.url = sb::net::parse_url("http://127.0.0.1:8000/v1");
  c.endpoint = "/v1/completions?key=SECRET2&api-version=1";
  c.adapter.extra_body = {{"api_key", "SECRET1"}, {"temperature", 0}, {"max_tokens", 7}};
  c.headers = {{"X-Auth", "SECRET5"},  {"Authentication", "SECRET6"},  {"My-Credential", "SECRET7"},
               {"X-Token", "SECRET7"}, {"X-Custom", "Bearer SECRET9"}, {"X-Tenant", "t1"}};
  c.api_key = "SECRET0";
  return c;
}

TEST(ConfigJson, EverySecretRedacted) {
  const json j = sb::engine::config_to_json(secret_config());
  EXPECT_EQ(j.dump().find("SECRET"), std::string::npos) << j.dump(2);
  EXPECT_EQ(j["endpoint"], "/v1/completions?key=***&api-version=1");
  EXPECT_EQ(j["extra_body"]["api_key"], "<redacted>");
  EXPECT_EQ(j["extra_body"]["max_tokens"], 7);
  for (const char* h : {"X-Auth", "Authentication", "My-Credential", "X-Token", "X-Custom"})
    EXPECT_EQ(j["headers"][h], "<redacted>") << h;
  EXPECT_EQ(j["headers"]["X-Tenant"], "t1");
  EXPECT_EQ(j["api_key"], "<redacted>");
  EXPECT_EQ(j["base_url"], "http://127.0.0.1:8000/v1");
}

// A summary as an older servebench (or another writer) could have left it.
json leaky_summary() {
  return {
      {"schema", "servebench.summary/1"},
      {"config",
       {{"base_url", "http://user:SECRET3@h:1/v1?token=SECRET4"},
        {"endpoints", json::array({"http://user:SECRET3@h:1"})},
        {"endpoint", "/v1/completions?key=SECRET2"},
        {"extra_body", {{"api_key", "SECRET1"}, {"n", 1}}},
        {"headers", {{"X-Auth", "SECRET5"}, {"Accept", "text/plain"}}},
        {"api_key", "SECRET0"},
        {"server_metrics", json::array({"http://h:2/metrics?token=SECRET8"})}}},
      {"telemetry",
       {{"sources", json::array({{{"kind", "server"}, {"url", "http://h:2/m?token=SECRET8"}},
                                 {{"kind", "gpu"}, {"detail", "dcgm http://h/m?sig=SECRETD"}}})},
        {"warnings", json::array({"server metrics http://h:2/m?token=SECRET8: 1 failed"})}}},
      {"metrics", {{"output_tokens", {{"count", 3}}}}}};
}

TEST(SummaryRedact, AnOlderFoldersSecretsAreRedactedOnRead) {
  const json r = sb::results::redact_summary(leaky_summary());
  EXPECT_EQ(r.dump().find("SECRET"), std::string::npos) << r.dump(2);
  EXPECT_EQ(r["config"]["base_url"], "http://user:***@h:1/v1?token=***");
  EXPECT_EQ(r["config"]["headers"]["Accept"], "text/plain");
  EXPECT_EQ(r["config"]["extra_body"]["n"], 1);
  EXPECT_EQ(r["metrics"]["output_tokens"]["count"], 3);  // names with "token" are kept
  EXPECT_EQ(sb::results::redact_summary(r), r);          // idempotent
}

TEST(SummaryRedact, SummaryToJsonRedactsWhateverItIsGiven) {
  sb::metrics::RunInfo info;
  const json leaky = leaky_summary();
  info.config = leaky["config"];
  info.telemetry = leaky["telemetry"];
  const json j = sb::results::summary_to_json(sb::metrics::summarize_run({}, info), info);
  EXPECT_EQ(j.dump().find("SECRET"), std::string::npos) << j.dump(2);
  EXPECT_EQ(j["config"]["api_key"], "<redacted>");
}

}  // namespace
