#include "results/run_outputs.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../report/fixture.h"
#include "../support/text_file.h"
#include "common/error.h"
#include "results/summary_csv.h"

namespace sb::results {
namespace {

namespace testing = sb::report::testing;  // the report tests' fixture run

namespace fs = std::filesystem;

using sb::testing::slurp;

TEST(RunOutputs, WritesSummaryJsonAndCsv) {
  const fs::path dir =
      fs::temp_directory_path() /
      ("sb_run_outputs_" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::create_directories(dir);
  auto info = testing::fixture_info();
  info.host["bad"] = "\xFF";  // invalid UTF-8 from the host must not abort the write
  const auto s = metrics::summarize_run(testing::fixture_records(), info);
  write_run_outputs(dir.string(), s, info);
  write_run_outputs(dir.string(), s, info);  // overwrite in place

  const auto j = nlohmann::json::parse(slurp(dir / "summary.json"));
  EXPECT_EQ(j.at("schema"), "servebench.summary/1");
  EXPECT_EQ(slurp(dir / "summary.csv"), summary_csv_header() + summary_csv_row(s));
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 2u);
  fs::remove_all(dir);
}

TEST(RunOutputs, MissingDirectoryThrows) {
  const auto info = testing::fixture_info();
  EXPECT_THROW(
      write_run_outputs("/nonexistent/servebench/dir", metrics::summarize_run({}, info), info),
      Error);
}

}  // namespace
}  // namespace sb::results
