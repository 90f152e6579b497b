// Output folders as users meet them (issue 20): prof, sweep and run refuse a non-empty -o
// folder with one message naming the folder and --overwrite; --overwrite writes over it; a
// symbolic link planted at summary.json is refused, its target untouched.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

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

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("sb_outputs_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void expect_refused(const CmdResult& r, const fs::path& dir) {
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_THAT(r.out, HasSubstr("-o " + dir.string() + ": the folder is not empty")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--overwrite")) << r.out;
}

TEST(Outputs, ProfRefusesANonEmptyFolderUnlessOverwrite) {
  const fs::path d = fresh_dir("prof");
  const std::string prof = "prof --sim instant -n 2 -q --no-progress -o " + (d / "r").string();
  ASSERT_EQ(run_servebench(prof).code, 0);
  const std::string first = slurp(d / "r" / "summary.json");
  expect_refused(run_servebench(prof), d / "r");
  EXPECT_EQ(slurp(d / "r" / "summary.json"), first);  // the earlier results are intact
  const CmdResult again = run_servebench(prof + " --overwrite");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(slurp(d / "r" / "summary.json"), first);
  // An empty folder is fine without the flag.
  fs::create_directories(d / "empty");
  EXPECT_EQ(
      run_servebench("prof --sim instant -n 1 -q --no-progress -o " + (d / "empty").string()).code,
      0);
  fs::remove_all(d);
}

TEST(Outputs, SweepAndRunShareTheCheck) {
  const fs::path d = fresh_dir("sweep");
  std::ofstream(d / "note.txt") << "mine";
  expect_refused(run_servebench("sweep --sim instant --concurrency 1,2 -n 2 -q -o " + d.string()),
                 d);
  std::ofstream(d / "plan.yaml") << R"(name: p
providers:
  - {id: a, sim: instant}
stages:
  - {kind: baseline, concurrency: 1, num_requests: 2}
)";
  expect_refused(run_servebench("run " + (d / "plan.yaml").string() + " -q -o " + d.string()), d);
  const CmdResult ok =
      run_servebench("run " + (d / "plan.yaml").string() + " -q --overwrite -o " + d.string());
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_TRUE(fs::exists(d / "index.json"));
  EXPECT_EQ(slurp(d / "note.txt"), "mine");  // --overwrite deletes nothing
  fs::remove_all(d);
}

TEST(Outputs, ARetryAfterAFailureBeforeTheFirstRequestNeedsNoOverwrite) {
  const fs::path d = fresh_dir("retry");
  std::ofstream(d / "bad.jsonl") << "not json\n";
  const std::string args =
      "prof --sim instant -n 2 -q --no-progress --strict -o " + (d / "r").string() + " --dataset ";
  const CmdResult bad = run_servebench(args + (d / "bad.jsonl").string());
  ASSERT_EQ(bad.code, 2) << bad.out;
  std::ofstream(d / "good.jsonl") << "{\"prompt\": \"hello\"}\n";
  const CmdResult good = run_servebench(args + (d / "good.jsonl").string());
  EXPECT_EQ(good.code, 0) << good.out;
  fs::remove_all(d);
}

TEST(Outputs, ASymlinkAtSummaryJsonIsRefused) {
  const fs::path d = fresh_dir("link");
  std::ofstream(d / "victim") << "keep me";
  fs::create_directories(d / "r");
  fs::create_symlink(d / "victim", d / "r" / "summary.json");
  const CmdResult r = run_servebench("prof --sim instant -n 2 -q --no-progress --overwrite -o " +
                                     (d / "r").string());
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("summary.json: is a symbolic link")) << r.out;
  EXPECT_EQ(slurp(d / "victim"), "keep me");
  EXPECT_TRUE(fs::is_symlink(d / "r" / "summary.json"));
  fs::remove_all(d);
}

TEST(Outputs, FilesFollowTheUmask) {
  const fs::path d = fresh_dir("umask");
  const CmdResult r =
      run_servebench("prof --sim instant -n 2 -q --no-progress -o " + (d / "r").string() +
                     "; (umask 077; exec " + SERVEBENCH_BINARY +
                     " prof --sim instant -n 2 -q "
                     "--no-progress -o " +
                     (d / "s").string() + ")");
  ASSERT_EQ(r.code, 0) << r.out;
  struct stat st {};
  ASSERT_EQ(::stat((d / "s" / "summary.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((d / "s" / "summary.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  fs::remove_all(d);
}

}  // namespace
