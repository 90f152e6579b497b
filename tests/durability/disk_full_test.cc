// Disk full and I/O errors in requests.jsonl: every complete line stays (a line cut by the
// failed write is truncated away), later records are counted as lost, the run still writes
// its summary from what is on disk (or says why it cannot), exits with ExitCode::io_error (7),
// and `servebench summarize` recovers every request completed before the failure.
//   - RequestLog with a fault-injected writer (ENOSPC after N bytes, EIO), and the real
//     ENOSPC of /dev/full at the descriptor level;
//   - the servebench binary under a file-size limit (RLIMIT_FSIZE: the kernel refuses
//     writes past it, EFBIG; no root needed);
//   - the servebench binary on a real 1 MiB tmpfs (in a user and mount namespace:
//     `unshare -rm`; skipped where the system does not allow it).
#include <sys/resource.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../e2e/run_binary.h"
#include "../support/text_file.h"
#include "child_process.h"
#include "common/error.h"
#include "common/manual_time_source.h"
#include "results/request_log.h"
#include "results/request_log_read.h"

namespace sb::durability {
namespace {

namespace fs = std::filesystem;
using sb::testing::slurp;
using ::testing::HasSubstr;

metrics::RequestRecord record(uint64_t id) {
  metrics::RequestRecord r;
  r.id = id;
  r.t_send_ns = static_cast<int64_t>(id) * 1000;
  r.t_end_ns = r.t_send_ns + 5000;
  r.output_tokens = 7;
  return r;
}

// write(2) until `budget` bytes have gone through, then `err` (a partial write first when
// the budget ends inside a call, as a filling disk does).
results::WriteFn failing_writer(size_t budget, int err) {
  auto left = std::make_shared<size_t>(budget);
  return [left, err](int fd, const void* data, size_t size) -> ssize_t {
    if (*left == 0) {
      errno = err;
      return -1;
    }
    const ssize_t n = ::write(fd, data, std::min(size, *left));
    if (n > 0) *left -= static_cast<size_t>(n);
    return n;
  };
}

size_t newline_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

// Closes `log` expecting its io_error; the message.
std::string close_expecting_io_error(results::RequestLog& log) {
  try {
    log.close();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::io_error);
    return e.what();
  }
  ADD_FAILURE() << "close() did not report the failed write";
  return "";
}

TEST(DiskFull, FailedWriteKeepsEveryCompleteLineAndCountsTheRestLost) {
  const fs::path dir = fresh_dir("log_enospc");
  ManualTimeSource clock;
  // 1000 bytes: the budget ends inside a line of the first batch.
  results::RequestLog log(dir.string(), std::chrono::milliseconds(50), &clock,
                          failing_writer(1000, ENOSPC));
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  for (uint64_t id = 1; id <= 40; ++id) log.append(record(id));
  clock.advance(std::chrono::milliseconds(50));  // the first batch: the write fails in it
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  const std::string after_failure = slurp(dir / "requests.jsonl");
  ASSERT_FALSE(after_failure.empty());
  EXPECT_EQ(after_failure.back(), '\n') << "a torn line was left";
  EXPECT_LT(after_failure.size(), 1000u);  // the cut line was truncated away
  const uint64_t kept = newline_count(after_failure);
  EXPECT_EQ(log.lines_kept(), kept);
  EXPECT_EQ(log.lines_lost(), 40 - kept);
  for (uint64_t id = 41; id <= 50; ++id) log.append(record(id));  // later appends: lost
  const std::string message = close_expecting_io_error(log);
  EXPECT_THAT(message, HasSubstr("writing " + (dir / "requests.jsonl").string() +
                                 " failed: No space left on device"));
  EXPECT_THAT(message, HasSubstr(fmt::format("it keeps every complete line, {} requests; {} "
                                             "later ones are lost",
                                             kept, 50 - kept)));
  EXPECT_EQ(slurp(dir / "requests.jsonl"), after_failure) << "nothing is written after it";
  const auto back = results::read_request_log((dir / "requests.jsonl").string());
  EXPECT_EQ(back.skipped_lines, 0);
  EXPECT_FALSE(back.last_line_cut);
  ASSERT_EQ(back.records.size(), kept);
  for (uint64_t i = 0; i < kept; ++i) EXPECT_EQ(back.records[i].id, i + 1);
  fs::remove_all(dir);
}

TEST(DiskFull, EioOnTheFirstByteKeepsAnEmptyFileAndLosesAll) {
  const fs::path dir = fresh_dir("log_eio");
  results::RequestLog log(dir.string(), std::chrono::seconds(1), nullptr, failing_writer(0, EIO));
  for (uint64_t id = 1; id <= 5; ++id) log.append(record(id));
  EXPECT_THAT(close_expecting_io_error(log),
              HasSubstr("failed: Input/output error; it keeps every complete line, 0 requests; 5 "
                        "later ones are lost"));
  EXPECT_EQ(fs::file_size(dir / "requests.jsonl"), 0u);
  fs::remove_all(dir);
}

// The kernel's own ENOSPC: writes past `budget` bytes go to /dev/full instead of the file.
TEST(DiskFull, DevFullAtTheDescriptorLevel) {
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "no /dev/full on this system";
  const fs::path dir = fresh_dir("log_dev_full");
  auto left = std::make_shared<size_t>(700);
  results::WriteFn writer = [left, full](int fd, const void* data, size_t size) -> ssize_t {
    if (*left == 0) return ::write(full, data, size);  // -1, errno ENOSPC
    const ssize_t n = ::write(fd, data, std::min(size, *left));
    if (n > 0) *left -= static_cast<size_t>(n);
    return n;
  };
  {
    results::RequestLog log(dir.string(), std::chrono::seconds(1), nullptr, writer);
    for (uint64_t id = 1; id <= 30; ++id) log.append(record(id));
    EXPECT_THAT(close_expecting_io_error(log), HasSubstr("No space left on device"));
    EXPECT_GT(log.lines_kept(), 0u);
    EXPECT_EQ(log.lines_kept() + log.lines_lost(), 30u);
  }
  ::close(full);
  const std::string text = slurp(dir / "requests.jsonl");
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(results::read_request_log((dir / "requests.jsonl").string()).records.size(),
            newline_count(text));
  fs::remove_all(dir);
}

// A run's requests.jsonl as `servebench summarize` reads it back: every line whole.
size_t whole_lines(const fs::path& jsonl) {
  const std::string text = slurp(jsonl);
  EXPECT_TRUE(text.empty() || text.back() == '\n') << "a torn line was left in " << jsonl;
  size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++n)
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  return n;
}

// "it keeps every complete line, N requests" of servebench's message.
size_t kept_in_message(const std::string& log) {
  std::smatch m;
  static const std::regex re("it keeps every complete line, ([0-9]+) requests");
  return std::regex_search(log, m, re) ? std::stoul(m[1]) : size_t{0};
}

TEST(DiskFull, ProfUnderAFileSizeLimitWritesItsSummaryAndExitsSeven) {
  const fs::path dir = fresh_dir("prof_fsize");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const rlimit limit{256 * 1024,
                       256 * 1024};  // requests.jsonl outgrows it, summary.json does not
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing
    const int fd = ::open((dir / "servebench.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    const std::string out = (dir / "run").string();
    ::execl(SERVEBENCH_BINARY, SERVEBENCH_BINARY, "prof", "--sim", "instant", "--api", "tgi", "-n",
            "3000", "--output-length", "8", "--concurrency", "8", "--no-progress", "-q", "-o",
            out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const int code = wait_exit(pid, std::chrono::minutes(3));
  const std::string log = slurp(dir / "servebench.log");
  EXPECT_EQ(code, static_cast<int>(ExitCode::io_error)) << log;
  EXPECT_THAT(log, HasSubstr("failed: File too large; it keeps every complete line, "));
  EXPECT_THAT(log, HasSubstr("later ones are lost; summary.json was written from the "));
  const size_t lines = whole_lines(dir / "run" / "requests.jsonl");
  EXPECT_GT(lines, 0u);
  EXPECT_LT(lines, 3000u);
  EXPECT_EQ(kept_in_message(log), lines) << log;
  const auto s = nlohmann::json::parse(slurp(dir / "run" / "summary.json"));
  EXPECT_EQ(s["run"]["requests"]["total"].get<size_t>(), lines);
  EXPECT_THAT(s["config"]["request_log_error"].get<std::string>(), HasSubstr("File too large"));
  // summarize recovers the same requests.
  const auto again = sb::testing::run_servebench("summarize -q " + (dir / "run").string());
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_THAT(again.out, HasSubstr(fmt::format("from {} requests", lines)));
  fs::remove_all(dir);
}

bool user_namespaces_mount_tmpfs() {
  return std::system(
             "unshare -rm sh -c 'mount -t tmpfs -o size=64k none /tmp' "
             ">/dev/null 2>&1") == 0;
}

TEST(DiskFull, ProfOnAFullTmpfsIsRecoveredBySummarize) {
  if (!user_namespaces_mount_tmpfs())
    GTEST_SKIP() << "`unshare -rm` cannot mount a tmpfs here (user namespaces disabled?): the "
                    "file-size-limit and fault-injected tests cover the same path";
  const fs::path dir = fresh_dir("prof_tmpfs");
  fs::create_directories(dir / "mnt");
  // In one namespace: a 1 MiB tmpfs, 512 KiB of it taken by a filler; the run fills the rest;
  // the filler removed, `summarize` rebuilds the summary the run could not write.
  const std::string script = fmt::format(
      "mount -t tmpfs -o size=1m none {0}/mnt || exit 90; "
      "head -c 524288 /dev/zero > {0}/mnt/filler; "
      "{1} prof --sim instant --api tgi -n 3000 --output-length 8 --concurrency 8 --no-progress "
      "-q "
      "-o {0}/mnt/run > {0}/prof.log 2>&1; echo $? > {0}/prof.rc; "
      "rm {0}/mnt/filler; "
      "{1} summarize -q {0}/mnt/run > {0}/summarize.log 2>&1; echo $? > {0}/summarize.rc; "
      "cp {0}/mnt/run/requests.jsonl {0}/mnt/run/summary.json {0}/",
      dir.string(), SERVEBENCH_BINARY);
  ASSERT_EQ(std::system(("unshare -rm sh -c '" + script + "'").c_str()), 0);
  const std::string prof_log = slurp(dir / "prof.log");
  EXPECT_EQ(slurp(dir / "prof.rc"), "7\n") << prof_log;
  EXPECT_THAT(prof_log, HasSubstr("failed: No space left on device; it keeps every complete "));
  EXPECT_THAT(prof_log, HasSubstr("the summary could not be written"));
  EXPECT_THAT(prof_log, HasSubstr("servebench summarize " + (dir / "mnt" / "run").string()));
  EXPECT_EQ(slurp(dir / "summarize.rc"), "0\n") << slurp(dir / "summarize.log");
  const size_t lines = whole_lines(dir / "requests.jsonl");
  EXPECT_GT(lines, 0u);
  EXPECT_EQ(kept_in_message(prof_log), lines) << prof_log;
  const auto s = nlohmann::json::parse(slurp(dir / "summary.json"));
  EXPECT_EQ(s["run"]["requests"]["total"].get<size_t>(), lines);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace sb::durability
