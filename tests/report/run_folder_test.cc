// Loading run folders: good runs, plan folders, labels, and every kind of bad input.
#include "report/run_folder.h"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/text_file.h"
#include "common/error.h"
#include "run_folder_fixture.h"

namespace sb::report {
namespace {

namespace fs = std::filesystem;
using testing::synthetic_info;
using testing::synthetic_records;
using testing::temp_folder;
using testing::write_run;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

using sb::testing::slurp;

TEST(RunFolder, LoadsSummaryAndRecords) {
  const auto d = temp_folder("ok");
  write_run(d / "r1", synthetic_records(20, 1, 1), synthetic_info(4, "tgi"));
  const RunData r = load_run_folder((d / "r1").string());
  EXPECT_EQ(r.name, "r1");
  EXPECT_EQ(r.backend, "sim:tgi");
  EXPECT_EQ(r.scenario, "in32/out16");
  EXPECT_TRUE(r.has_requests);
  EXPECT_EQ(r.records, 20);
  EXPECT_EQ(r.samples.measured + 0, 20);
  EXPECT_EQ(r.skipped_lines, 0);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(load_of(r.summary).kind, "concurrency");
  EXPECT_EQ(load_of(r.summary).value, 4);
  EXPECT_EQ(number_at(r.summary, {"run", "requests", "total"}), 20);
  EXPECT_EQ(load_run_folder((d / "r1").string(), "mine").backend, "mine");
}

TEST(RunFolder, PlanFoldersAndLabels) {
  const auto d = temp_folder("plan");
  write_run(d / "plan" / "b" / "c8", synthetic_records(10, 2, 1), synthetic_info(8));
  write_run(d / "plan" / "a" / "c4", synthetic_records(10, 1, 1), synthetic_info(4));
  write_run(d / "single", synthetic_records(10, 3, 1), synthetic_info(2));
  const auto runs = load_runs({(d / "plan").string(), "custom=" + (d / "single").string()});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "c4");  // sorted by path
  EXPECT_EQ(runs[1].name, "c8");
  EXPECT_EQ(runs[0].backend, "sim:instant");
  EXPECT_EQ(runs[2].backend, "custom");
  EXPECT_NE(error_of([&] { load_runs({(d / "nothing").string()}); }).find("no such folder"),
            std::string::npos);
  fs::create_directories(d / "emptydir");
  EXPECT_NE(error_of([&] { load_runs({(d / "emptydir").string()}); }).find("summary.json"),
            std::string::npos);
}

TEST(RunFolder, MissingSummaryNamesTheFile) {
  const auto d = temp_folder("missing");
  fs::create_directories(d / "r");
  const std::string e = error_of([&] { load_run_folder((d / "r").string()); });
  EXPECT_NE(e.find((d / "r" / "summary.json").string()), std::string::npos) << e;
  EXPECT_NE(e.find("missing"), std::string::npos) << e;
}

TEST(RunFolder, TruncatedSummaryNamesTheFile) {
  const auto d = temp_folder("truncated");
  write_run(d / "r", synthetic_records(5, 1, 1), synthetic_info(1));
  const std::string full = slurp(d / "r" / "summary.json");
  std::ofstream(d / "r" / "summary.json", std::ios::binary) << full.substr(0, full.size() / 2);
  const std::string e = error_of([&] { load_run_folder((d / "r").string()); });
  EXPECT_NE(e.find("summary.json: not valid JSON (truncated"), std::string::npos) << e;
  std::ofstream(d / "r" / "summary.json", std::ios::binary | std::ios::trunc) << "";
  EXPECT_NE(error_of([&] { load_run_folder((d / "r").string()); }).find("empty file"),
            std::string::npos);
}

TEST(RunFolder, OtherSchemaVersionsAreRejectedClearly) {
  const auto d = temp_folder("schema");
  write_run(d / "r", synthetic_records(5, 1, 1), synthetic_info(1));
  auto j = nlohmann::json::parse(slurp(d / "r" / "summary.json"));
  j["schema"] = "servebench.summary/2";
  std::ofstream(d / "r" / "summary.json", std::ios::binary | std::ios::trunc) << j.dump();
  const std::string e = error_of([&] { load_run_folder((d / "r").string()); });
  EXPECT_NE(e.find("schema 'servebench.summary/2' is not supported"), std::string::npos) << e;
  EXPECT_NE(e.find("servebench.summary/1"), std::string::npos) << e;
  j.erase("schema");
  std::ofstream(d / "r" / "summary.json", std::ios::binary | std::ios::trunc) << j.dump();
  EXPECT_NE(error_of([&] { load_run_folder((d / "r").string()); }).find("no \"schema\""),
            std::string::npos);
}

TEST(RunFolder, RequestsCutMidLineKeepTheWholeLinesAndSaySo) {
  const auto d = temp_folder("cut");
  write_run(d / "r", synthetic_records(10, 1, 1), synthetic_info(1));
  const std::string full = slurp(d / "r" / "requests.jsonl");
  // Cut in the middle of the last line.
  const size_t last_start = full.rfind('\n', full.size() - 2) + 1;
  std::ofstream(d / "r" / "requests.jsonl", std::ios::binary | std::ios::trunc)
      << full.substr(0, last_start + 25);
  const RunData r = load_run_folder((d / "r").string());
  EXPECT_EQ(r.records, 9);
  EXPECT_EQ(r.skipped_lines, 1);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("skipped 1 line"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("line 10 (cut, no newline)"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("used the 9 whole lines"), std::string::npos) << r.warnings[0];
}

TEST(RunFolder, MissingRequestsIsAWarning) {
  const auto d = temp_folder("noreq");
  write_run(d / "r", synthetic_records(3, 1, 1), synthetic_info(1));
  fs::remove(d / "r" / "requests.jsonl");
  const RunData r = load_run_folder((d / "r").string());
  EXPECT_FALSE(r.has_requests);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("requests.jsonl: missing"), std::string::npos);
}

TEST(RunFolder, EmptyRunLoadsWithAWarning) {
  const auto d = temp_folder("empty");
  write_run(d / "r", {}, synthetic_info(1));
  const RunData r = load_run_folder((d / "r").string());
  EXPECT_EQ(r.records, 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("empty run"), std::string::npos);
}

TEST(RunFolder, ScenarioFromClassesOrConfig) {
  nlohmann::json s = {{"config", {{"scenario", "chat"}}}};
  EXPECT_EQ(scenario_of(s), "chat");
  s = {{"classes", {{"chat", 1}, {"long", 2}}}};
  EXPECT_EQ(scenario_of(s), "chat+long");
  EXPECT_EQ(scenario_of(nlohmann::json::object()), "default");
  // Lengths from the workload: counts, or the distribution / shared-prefix spec that replaced
  // them (the count is then not what the prompts had).
  nlohmann::json w = {{"config", {{"workload", {{"input_tokens", 256}, {"output_tokens", 128}}}}}};
  EXPECT_EQ(scenario_of(w), "in256/out128");
  w["config"]["workload"]["input_dist"] = "uniform:min=20,max=60";
  EXPECT_EQ(scenario_of(w), "in[uniform:min=20,max=60]/out128");
  w["config"]["workload"]["input_dist"] = "";
  w["config"]["workload"]["shared_prefix"] = "prefixes=2,suffixes=4";
  w["config"]["workload"]["output_dist"] = "uniform:min=4,max=12";
  EXPECT_EQ(scenario_of(w), "prefix[prefixes=2,suffixes=4]/out[uniform:min=4,max=12]");
  EXPECT_EQ(backend_of({{"config", {{"base_url", "https://api.example.com:8443/v1"}}}}),
            "api.example.com:8443");
  nlohmann::json open = {{"load", {{"mode", "open"}, {"target_rate", 12.5}}}};
  EXPECT_EQ(load_of(open).kind, "rate");
  EXPECT_EQ(load_of(open).value, 12.5);
}

}  // namespace
}  // namespace sb::report
