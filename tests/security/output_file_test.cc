// results/output_file, results/output_dir and common/wall_clock's unique folders: output
// files are created exclusively, never through a link, with the umask's permissions; a
// non-empty -o folder needs --overwrite; racing runs get different folders.
#include "results/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../support/text_file.h"
#include "common/error.h"
#include "common/wall_clock.h"
#include "results/output_dir.h"
#include "results/run_outputs.h"

namespace {

namespace fs = std::filesystem;
using sb::testing::slurp;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("sb-security-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string at(const std::string& name) const { return (path / name).string(); }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sb::Error& e) {
    return e.what();
  }
  return "";
}

mode_t mode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 0777;
}

TEST(OutputFile, CreatesANewFileWithTheUmasksMode) {
  TempDir d;
  const mode_t old = ::umask(022);
  const int fd = sb::results::open_output_file(d.at("a.json"), false);
  ::umask(old);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  EXPECT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);
  EXPECT_EQ(mode_of(d.at("a.json")), 0644u);
  const mode_t strict = ::umask(077);
  ::close(sb::results::open_output_file(d.at("b.json"), false));
  ::umask(strict);
  EXPECT_EQ(mode_of(d.at("b.json")), 0600u);
}

TEST(OutputFile, AnExistingFileOnlyWithOverwrite) {
  TempDir d;
  std::ofstream(d.at("s.json")) << "earlier";
  const std::string why =
      error_of([&] { (void)sb::results::open_output_file(d.at("s.json"), false); });
  EXPECT_NE(why.find("already exists"), std::string::npos) << why;
  EXPECT_NE(why.find("--overwrite"), std::string::npos) << why;
  EXPECT_EQ(slurp(d.at("s.json")), "earlier");
  const int fd = sb::results::open_output_file(d.at("s.json"), true);
  ::close(fd);
  EXPECT_EQ(slurp(d.at("s.json")), "");  // truncated
}

TEST(OutputFile, ASymlinkIsRefusedNotFollowed) {
  TempDir d;
  std::ofstream(d.at("victim")) << "keep me";
  fs::create_symlink(d.at("victim"), d.at("summary.json"));
  for (bool overwrite : {false, true}) {
    const std::string why =
        error_of([&] { (void)sb::results::open_output_file(d.at("summary.json"), overwrite); });
    EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  }
  // A dangling link: O_CREAT would create its target; O_NOFOLLOW refuses.
  fs::create_symlink(d.at("nowhere"), d.at("dangling"));
  EXPECT_NE(error_of([&] { (void)sb::results::open_output_file(d.at("dangling"), false); }), "");
  EXPECT_FALSE(fs::exists(d.at("nowhere")));
  EXPECT_EQ(slurp(d.at("victim")), "keep me");
}

TEST(OutputFile, AFifoIsRefusedWithoutBlocking) {
  TempDir d;
  ASSERT_EQ(::mkfifo(d.at("fifo").c_str(), 0600), 0);
  const std::string why =
      error_of([&] { (void)sb::results::open_output_file(d.at("fifo"), true); });
  EXPECT_NE(why.find("not a regular file"), std::string::npos) << why;
}

TEST(OutputFile, LaunchLogModeIsAppliedToAnOldFileToo) {
  TempDir d;
  std::ofstream(d.at("launch.log")) << "old";
  ::chmod(d.at("launch.log").c_str(), 0644);
  ::close(sb::results::open_output_file(d.at("launch.log"), true, 0600));
  EXPECT_EQ(mode_of(d.at("launch.log")), 0600u);
  ::close(sb::results::open_output_file(d.at("new.log"), false, 0600));
  EXPECT_EQ(mode_of(d.at("new.log")), 0600u);
}

TEST(WriteFileAtomically, ReplacesAFileButNotALink) {
  TempDir d;
  sb::results::write_file_atomically(d.at("index.json"), "one");
  sb::results::write_file_atomically(d.at("index.json"), "two");
  EXPECT_EQ(slurp(d.at("index.json")), "two");
  std::ofstream(d.at("victim")) << "keep me";
  fs::create_symlink(d.at("victim"), d.at("summary.json"));
  const std::string why =
      error_of([&] { sb::results::write_file_atomically(d.at("summary.json"), "evil"); });
  EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
  EXPECT_EQ(slurp(d.at("victim")), "keep me");
  EXPECT_TRUE(fs::is_symlink(d.at("summary.json")));
  // No temporary file is left behind, on success or failure.
  for (const auto& e : fs::directory_iterator(d.path))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(WriteFileAtomically, ALinkPlantedAtTheTemporaryNameIsNotFollowed) {
  TempDir d;
  std::ofstream(d.at("victim")) << "keep me";
  // Every name the writer could try first for this process.
  for (int i = 0; i < 4; ++i)
    fs::create_symlink(d.at("victim"), d.at("out.json.tmp." + std::to_string(::getpid()) + "." +
                                            std::to_string(i)));
  sb::results::write_file_atomically(d.at("out.json"), "fine");
  EXPECT_EQ(slurp(d.at("out.json")), "fine");
  EXPECT_EQ(slurp(d.at("victim")), "keep me");
}

TEST(WriteRunOutputs, RefusesASymlinkAtSummaryJson) {
  TempDir d;
  std::ofstream(d.at("victim")) << "keep me";
  fs::create_symlink(d.at("victim"), d.at("summary.json"));
  sb::metrics::RunInfo info;
  const sb::metrics::RunSummary summary = sb::metrics::summarize_run({}, info);
  EXPECT_NE(error_of([&] { sb::results::write_run_outputs(d.path.string(), summary, info); }), "");
  EXPECT_EQ(slurp(d.at("victim")), "keep me");
}

TEST(OutputDir, EmptyOrMissingIsUsedNonEmptyNeedsOverwrite) {
  TempDir d;
  sb::results::prepare_output_dir(d.at("new/deep"), false);  // created with its parents
  EXPECT_TRUE(fs::is_directory(d.at("new/deep")));
  sb::results::prepare_output_dir(d.at("new/deep"), false);  // empty: fine
  std::ofstream(d.at("new/deep/summary.json")) << "{}";
  const std::string why =
      error_of([&] { sb::results::prepare_output_dir(d.at("new/deep"), false); });
  EXPECT_NE(why.find("-o " + d.at("new/deep")), std::string::npos) << why;
  EXPECT_NE(why.find("not empty"), std::string::npos) << why;
  EXPECT_NE(why.find("summary.json"), std::string::npos) << why;
  EXPECT_NE(why.find("--overwrite"), std::string::npos) << why;
  sb::results::prepare_output_dir(d.at("new/deep"), true);
  EXPECT_EQ(slurp(d.at("new/deep/summary.json")), "{}");  // nothing is deleted
  std::ofstream(d.at("file")) << "x";
  EXPECT_NE(
      error_of([&] { sb::results::prepare_output_dir(d.at("file"), true); }).find("not a folder"),
      std::string::npos);
}

TEST(OutputDir, EmptyFilesOfARunThatFailedBeforeItsFirstRequestAreNoData) {
  TempDir d;
  fs::create_directories(d.at("r/c1"));
  std::ofstream(d.at("r/requests.jsonl"));
  std::ofstream(d.at("r/c1/requests.jsonl"));
  sb::results::prepare_output_dir(d.at("r"), false);  // a retry loses nothing
  std::ofstream(d.at("r/c1/requests.jsonl")) << "{\"id\":0}\n";
  const std::string why = error_of([&] { sb::results::prepare_output_dir(d.at("r"), false); });
  EXPECT_NE(why.find("c1/requests.jsonl"), std::string::npos) << why;
  fs::remove(d.at("r/c1/requests.jsonl"));
  fs::create_symlink(d.at("elsewhere"), d.at("r/link"));  // a link is not empty
  EXPECT_NE(error_of([&] { sb::results::prepare_output_dir(d.at("r"), false); }), "");
}

TEST(UniqueDir, RacingRunsGetDifferentFolders) {
  TempDir d;
  const std::string base = d.at("20260101-000000-openai");
  constexpr int kThreads = 24;
  std::vector<std::string> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] { got[i] = sb::create_unique_dir(base); });
  for (auto& t : threads) t.join();
  const std::set<std::string> distinct(got.begin(), got.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads));
  EXPECT_TRUE(distinct.count(base));
  EXPECT_TRUE(distinct.count(base + "-2"));
  EXPECT_TRUE(distinct.count(base + "-" + std::to_string(kThreads)));
  for (const auto& g : got) EXPECT_TRUE(fs::is_empty(g)) << g;
}

TEST(UniqueDir, RacingProcessesGetDifferentFolders) {
  TempDir d;
  const std::string base = d.at("race");
  constexpr int kChildren = 8;
  std::vector<pid_t> pids;
  for (int i = 0; i < kChildren; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      try {
        (void)sb::create_unique_dir(base);
        ::_exit(0);
      } catch (...) {
        ::_exit(1);
      }
    }
    pids.push_back(pid);
  }
  for (pid_t p : pids) {
    int status = 0;
    ::waitpid(p, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  int dirs = 0;
  for (const auto& e : fs::directory_iterator(d.path)) dirs += e.is_directory();
  EXPECT_EQ(dirs, kChildren);
}

}  // namespace
