// How requests.jsonl is created: never through a symbolic link; an earlier run's file (a
// folder accepted with --overwrite) is truncated, not appended to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../support/text_file.h"
#include "child_process.h"
#include "common/error.h"
#include "results/request_log.h"

namespace sb::durability {
namespace {

namespace fs = std::filesystem;
using sb::testing::slurp;
using ::testing::HasSubstr;

TEST(RequestLogOpen, SymlinkAtRequestsJsonlIsRefusedAndItsTargetUntouched) {
  const fs::path dir = fresh_dir("log_symlink");
  std::ofstream(dir / "victim") << "keep me\n";
  fs::create_symlink(dir / "victim", dir / "requests.jsonl");
  try {
    results::RequestLog log(dir.string());
    FAIL() << "the link was followed";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is a symbolic link"));
  }
  EXPECT_EQ(slurp(dir / "victim"), "keep me\n");
  fs::remove_all(dir);
}

TEST(RequestLogOpen, EarlierRunsFileIsTruncated) {
  const fs::path dir = fresh_dir("log_earlier");
  std::ofstream(dir / "requests.jsonl") << "{\"id\":99}\n{\"id\":100}\n";
  {
    results::RequestLog log(dir.string());
    metrics::RequestRecord r;
    r.id = 1;
    log.append(r);
  }
  const std::string text = slurp(dir / "requests.jsonl");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  EXPECT_THAT(text, HasSubstr("\"id\":1,"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::durability
