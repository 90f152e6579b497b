// A `launch:` server's log can hold its key (the output of its command): it is created 0600,
// whatever the umask, and never through a symbolic link.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "../support/text_file.h"
#include "common/error.h"
#include "plan/launcher.h"

namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path = fs::temp_directory_path() / ("sb_launch_log_" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

sb::plan::LaunchSpec failing_server() {
  sb::plan::LaunchSpec s;
  s.command = "echo key=sk-from-the-server; exit 3";
  s.ready_url = "http://127.0.0.1:1/health";  // nobody answers on port 1
  s.ready_timeout_s = 5;
  s.stop_grace_s = 1;
  return s;
}

TEST(LaunchLog, IsPrivateWhateverTheUmask) {
  const Dir d;
  const std::string log = (d.path / "a-launch.log").string();
  const std::atomic<bool> stop{false};
  const mode_t old = ::umask(0);
  {
    sb::plan::Launcher l(failing_server(), log, &stop);
    EXPECT_THROW(l.start(), sb::Error);
  }
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(sb::testing::slurp(log).find("sk-from-the-server"), std::string::npos);
}

TEST(LaunchLog, ASymlinkAtTheLogIsRefused) {
  const Dir d;
  std::ofstream(d.path / "victim") << "keep me";
  fs::create_symlink(d.path / "victim", d.path / "a-launch.log");
  const std::atomic<bool> stop{false};
  sb::plan::Launcher l(failing_server(), (d.path / "a-launch.log").string(), &stop);
  EXPECT_THROW(l.start(), sb::Error);
  EXPECT_EQ(sb::testing::slurp(d.path / "victim"), "keep me");
}

}  // namespace
