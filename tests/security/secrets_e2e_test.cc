// The must-show of issue 20's secrets: a secret planted in each place a user can give one
// (--extra-body, --endpoint's query, a base URL's password and query, credential headers
// outside the old short list, --server-metrics' query, the API key) is found in no file of
// the run folder (requests.jsonl, summary.json/csv, telemetry.jsonl, index, report.html) and
// not on stderr, for prof, sweep and run, against the in-process simulator.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../e2e/run_binary.h"
#include "../support/text_file.h"

namespace {

namespace fs = std::filesystem;
using sb::testing::CmdResult;
using sb::testing::run_servebench;
using sb::testing::slurp;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("sb_secrets_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Port 9 (discard) answers nobody on loopback: every scrape fails, so the URL also goes
// through the failure warnings (stderr, summary.json telemetry.warnings).
constexpr const char* kSecretFlags =
    "--api openai --extra-body '{\"api_key\":\"SECRET1\",\"max_tokens\":8}' "
    "--endpoint '/v1/completions?key=SECRET2' "
    "-H 'X-Auth: SECRET5' -H 'Authentication: SECRET6' -H 'My-Credential: SECRET7' "
    "-H 'X-Token: SECRET7' --api-key-env SB_SECRETS_KEY "
    "--server-metrics 'http://127.0.0.1:9/metrics?token=SECRET8' "
    "--gpu-telemetry 'dcgm:http://127.0.0.1:9/metrics?token=SECRETD' --telemetry-interval 50 ";

// Every regular file under `dir` (and `out`, stdout + stderr) holds no "SECRET"; returns the
// number of files read.
int expect_no_secret(const fs::path& dir, const std::string& out) {
  EXPECT_THAT(out, Not(HasSubstr("SECRET"))) << out;
  int files = 0;
  for (const auto& f : fs::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    ++files;
    const std::string text = slurp(f.path());
    const size_t at = text.find("SECRET");
    EXPECT_EQ(at, std::string::npos)
        << f.path() << ": ..."
        << text.substr(at == std::string::npos ? 0 : (at < 80 ? 0 : at - 80), 160);
  }
  return files;
}

class Secrets : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("SB_SECRETS_KEY", "SECRET0", 1); }
};

TEST_F(Secrets, ProfAndItsReportHoldNone) {
  const fs::path d = fresh_dir("prof");
  const CmdResult r = run_servebench(std::string("prof --sim instant -n 6 --concurrency 2 ") +
                                     kSecretFlags + "-o " + (d / "run").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("token=***"));  // the failed scrapes were reported, redacted
  const CmdResult rep = run_servebench("report " + (d / "run").string() + " -o " +
                                       (d / "run" / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  for (const char* f :
       {"requests.jsonl", "summary.json", "summary.csv", "telemetry.jsonl", "report.html"})
    EXPECT_TRUE(fs::exists(d / "run" / f)) << f;
  EXPECT_GE(expect_no_secret(d, r.out + rep.out), 5);
  // The redacted places are still there, so that a reader sees what was set.
  const std::string summary = slurp(d / "run" / "summary.json");
  EXPECT_THAT(summary, HasSubstr("/v1/completions?key=***"));
  EXPECT_THAT(summary, HasSubstr("\"X-Auth\": \"<redacted>\""));
  EXPECT_THAT(summary, HasSubstr("\"max_tokens\": 8"));
  fs::remove_all(d);
}

TEST_F(Secrets, SweepOfTwoLevelsHoldsNone) {
  const fs::path d = fresh_dir("sweep");
  const CmdResult r = run_servebench(std::string("sweep --sim instant --concurrency 1,2 -n 4 -q ") +
                                     kSecretFlags + "-o " + (d / "sw").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const CmdResult rep = run_servebench("report " + (d / "sw").string() + " -o " +
                                       (d / "sw" / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  EXPECT_TRUE(fs::exists(d / "sw" / "index.json"));
  EXPECT_GE(expect_no_secret(d, r.out + rep.out), 11);
  fs::remove_all(d);
}

TEST_F(Secrets, RunOfAOneProviderPlanHoldsNone) {
  const fs::path d = fresh_dir("run");
  std::ofstream(d / "plan.yaml") << R"(name: secrets
providers:
  - id: a
    sim: instant
    api_key: SECRETP
    headers: {X-Auth: SECRET5, Authentication: SECRET6, My-Credential: SECRET7, X-Token: SECRET7}
defaults:
  api: openai
  server_metrics: ['http://127.0.0.1:9/metrics?token=SECRET8']
  telemetry_interval: 50ms
stages:
  - {kind: sweep, concurrency: [1, 2], num_requests: 4}
)";
  const CmdResult r =
      run_servebench("run " + (d / "plan.yaml").string() + " -q -o " + (d / "p").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const CmdResult rep =
      run_servebench("report " + (d / "p").string() + " -o " + (d / "p" / "report.html").string());
  ASSERT_EQ(rep.code, 0) << rep.out;
  // The plan file itself holds them: only the output folder and the output are searched.
  EXPECT_GE(expect_no_secret(d / "p", r.out + rep.out), 11);
  fs::remove_all(d);
}

TEST_F(Secrets, BadUrlsNeverEchoAPassword) {
  const fs::path d = fresh_dir("urls");
  const std::vector<std::string> cases = {
      "prof -n 1 --base-url 'http://user:SECRET3@127.0.0.1:9'",
      "prof --sim instant -n 1 --base-url 'http://user:SECRET3@127.0.0.1:9/v1'",
      "prof -n 1 --base-url 'http://127.0.0.1:9/v1?token=SECRET4'",
      "prof -n 1 --base-url 'http://u:SEC/RET3@127.0.0.1:9'",  // a '/' in the password
      "prof -n 1 --base-url 'http://u:SEC RET3@127.0.0.1:9'",  // a space
      "prof -n 1 --base-url 'user:SECRET3@127.0.0.1:9'",       // no scheme
      "prof -n 1 --base-url 'http://127.0.0.1:9/v1#access_token=SECRET4'",
      "prof --sim instant -n 1 --server-metrics 'ftp://u:SECRET3@h/?token=SECRET4'",
      "prof --sim instant -n 1 --extra-body '{\"api_key\":\"SECRET1\",'",
  };
  for (const auto& c : cases) {
    const CmdResult r = run_servebench(c + " -o " + (d / "o").string());
    EXPECT_EQ(r.code, 2) << c << "\n" << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("SECRET"))) << c << "\n" << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("RET3"))) << c << "\n" << r.out;
  }
  std::ofstream(d / "plan.yaml") << R"(name: bad
providers:
  - {id: a, base_url: 'http://user:SECRET3@127.0.0.1:9/v1'}
stages:
  - {kind: baseline, concurrency: 1, num_requests: 1}
)";
  const CmdResult r = run_servebench("run --check " + (d / "plan.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("providers[0] (a).base_url"), HasSubstr("***@127.0.0.1:9"),
                           Not(HasSubstr("SECRET"))));
  fs::remove_all(d);
}

}  // namespace
