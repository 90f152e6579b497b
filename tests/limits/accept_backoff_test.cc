// Accept loops out of descriptors (common/accept_backoff.h): the simulator and the live
// metrics endpoint wait 50 ms between tries and say so once, instead of spinning a core. The
// spin detector is CPU time over one second of exhaustion (not a speed bound): a spinning loop
// burns about a second, a backed-off one a few milliseconds; the bound is 300 ms.
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../sim/http_client.h"
#include "common/accept_backoff.h"
#include "limits_support.h"
#include "telemetry/metrics_server.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace sb::limits_test {
namespace {

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(AcceptBackoff, ExhaustionIsEmfileEnfileEnobufsEnomem) {
  using boost::system::error_code;
  using boost::system::system_category;
  EXPECT_TRUE(is_descriptor_exhaustion(error_code(EMFILE, system_category())));
  EXPECT_TRUE(is_descriptor_exhaustion(error_code(ENFILE, system_category())));
  EXPECT_TRUE(is_descriptor_exhaustion(error_code(ENOBUFS, system_category())));
  EXPECT_TRUE(is_descriptor_exhaustion(error_code(ENOMEM, system_category())));
  EXPECT_FALSE(is_descriptor_exhaustion(error_code(ECONNABORTED, system_category())));
  AcceptBackoff b("test server");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(b.after_error(error_code(ECONNABORTED, system_category())), AcceptBackoff::kOtherDelay);
  EXPECT_FALSE(b.logged());
  EXPECT_EQ(b.after_error(error_code(EMFILE, system_category())), AcceptBackoff::kExhaustedDelay);
  EXPECT_EQ(b.after_error(error_code(EMFILE, system_category())), AcceptBackoff::kExhaustedDelay);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(b.logged());
  EXPECT_EQ(occurrences(err, "test server: cannot accept a connection"), 1u) << err;
}

TEST(AcceptBackoff, SimulatorOutOfDescriptorsDoesNotSpinAndRecovers) {
  const std::string err_path =
      (fs::temp_directory_path() / ("sb-emfile-" + std::to_string(getpid()) + ".err")).string();
  // A cap above what 64 descriptors hold, so that accepting (not the cap) runs out.
  SimChild sim({"--preset", "instant", "--port", "0", "--max-connections", "1000"}, 64, err_path);
  ASSERT_GT(sim.port(), 0) << slurp(err_path);
  // One request first, as a server meets load after serving. It also warms UBSan's vptr
  // cache: a cache miss opens a pipe to test that the vtable may be read (sanitizer_common's
  // IsAccessibleMemoryRange), which fails out of descriptors and reports a sound Beast parser
  // as "invalid vptr" (seen in CI's ASan pass: the simulator died, the reconnect was refused).
  {
    sim::testing::Conn c(sim.port(), 10000);
    c.send("GET", "/health");
    ASSERT_EQ(c.read().status, 200) << slurp(err_path);
  }
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {  // more than its 64 descriptors can accept
    const int fd = new_socket();
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(connect_loopback(fd, sim.port()));
    fds.push_back(fd);
  }
  // Exhausted once it has accepted what it can; then one second of the loop's CPU time.
  for (int i = 0; i < 100 && slurp(err_path).find("cannot accept") == std::string::npos; ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_NE(slurp(err_path).find("cannot accept"), std::string::npos) << slurp(err_path);
  const double before = process_cpu_s(sim.pid());
  std::this_thread::sleep_for(1s);
  const double cpu = process_cpu_s(sim.pid()) - before;
  std::printf("simulator out of descriptors: %.3f s CPU over 1 s\n", cpu);
  EXPECT_LT(cpu, 0.3) << "the accept loop spins: " << cpu << " s of CPU in 1 s";
  EXPECT_EQ(occurrences(slurp(err_path), "cannot accept a connection"), 1u) << slurp(err_path);
  for (int fd : fds) ::close(fd);
  // Descriptors free again: it serves.
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    sim::testing::Conn c(sim.port(), 10000);
    c.send("GET", "/health");
    status = c.read().status;
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200);
  fs::remove(err_path);
}

TEST(AcceptBackoff, LiveMetricsEndpointOutOfDescriptorsDoesNotSpin) {
  telemetry::MetricsServer server("127.0.0.1", 0, [] { return std::string("up 1\n"); });
  const uint16_t port = server.start();
  std::vector<int> fds;
  for (int i = 0; i < 40; ++i) fds.push_back(new_socket());  // while descriptors are free
  ::testing::internal::CaptureStderr();                      // its descriptors too
  // Fill every hole below the highest descriptor, so that the limit leaves exactly two free.
  int highest = 0;
  for (int fd = 0; fd < 65536; ++fd)
    if (fcntl(fd, F_GETFD) != -1) highest = fd;
  std::vector<int> fillers;
  for (int d = dup(0); d >= 0; d = dup(0)) {
    if (d > highest) {
      ::close(d);
      break;
    }
    fillers.push_back(d);
  }
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = static_cast<rlim_t>(highest + 3);  // room for two accepts, then EMFILE
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  for (int fd : fds) connect_loopback(fd, port);
  std::this_thread::sleep_for(200ms);  // accepted what fits; the rest wait in the backlog
  const double before = self_cpu_s();
  std::this_thread::sleep_for(1s);
  const double cpu = self_cpu_s() - before;
  setrlimit(RLIMIT_NOFILE, &saved);
  const std::string err = ::testing::internal::GetCapturedStderr();
  std::printf("live endpoint out of descriptors: %.3f s CPU over 1 s\n", cpu);
  EXPECT_LT(cpu, 0.3) << "the accept loop spins: " << cpu << " s of CPU in 1 s";
  EXPECT_EQ(occurrences(err, "cannot accept a connection"), 1u) << err;
  for (int fd : fds) ::close(fd);
  for (int fd : fillers) ::close(fd);
  server.stop();
}

}  // namespace
}  // namespace sb::limits_test
