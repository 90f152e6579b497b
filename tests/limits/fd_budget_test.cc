// common/fd_limit.h: the descriptor budget of a run, the refusal's sentence, the in-process
// listener registry, and the raise of the soft limit.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include "common/fd_limit.h"

namespace sb::fd {
namespace {

TEST(FdBudget, CountsEveryEndpointsPoolAndTheInProcessServerSide) {
  // prof --sim instant --concurrency 600 with 2 client workers and the simulator's 2 loops.
  const DescriptorBudget b = run_budget(600, 1, 1, 2, 2);
  EXPECT_EQ(b.client_connections, 600);
  EXPECT_EQ(b.in_process_server, 600);  // the simulator's side doubles the sockets
  EXPECT_EQ(b.listeners, 1);
  EXPECT_GT(b.total(), 1200 + b.margin);

  // Three load-balanced endpoints, none in this process: each keeps its own pool.
  const DescriptorBudget lb = run_budget(100, 3, 0, 0, 4);
  EXPECT_EQ(lb.client_connections, 300);
  EXPECT_EQ(lb.in_process_server, 0);
  EXPECT_EQ(lb.listeners, 0);
  // Two of two replicas in process: both pools and both server sides.
  const DescriptorBudget two = run_budget(100, 2, 2, 4, 4);
  EXPECT_EQ(two.client_connections + two.in_process_server, 400);
}

TEST(FdBudget, EmptyWhenItFits) {
  const DescriptorBudget b = run_budget(10, 1, 0, 0, 2);
  EXPECT_EQ(descriptor_shortfall(b, {static_cast<uint64_t>(b.total()), 4096}, "--concurrency", 10),
            "");
  EXPECT_EQ(descriptor_shortfall(b, {UINT64_MAX, UINT64_MAX}, "--concurrency", 10), "");
}

TEST(FdBudget, ShortfallNamesTheNumberTheLimitAndTheFixes) {
  const DescriptorBudget b = run_budget(600, 1, 1, 2, 2);
  const std::string why = descriptor_shortfall(b, {1024, 1024}, "--concurrency", 600);
  const std::string need = std::to_string(b.total());
  EXPECT_NE(why.find("--concurrency 600 needs about " + need + " file descriptors"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("the limit is 1024 (hard limit 1024)"), std::string::npos) << why;
  EXPECT_NE(why.find("`ulimit -n " + need + "`"), std::string::npos) << why;
  EXPECT_NE(why.find("above the hard limit"), std::string::npos) << why;
  EXPECT_NE(why.find("run the simulator as its own process"), std::string::npos) << why;
  // The largest concurrency that fits, checked against the budget itself.
  const size_t at = why.find("lower --concurrency to ");
  ASSERT_NE(at, std::string::npos) << why;
  const int64_t fits = std::stoll(why.substr(at + 23));
  EXPECT_LE(run_budget(fits, 1, 1, 2, 2).total(), 1024);
  EXPECT_GT(run_budget(fits + 1, 1, 1, 2, 2).total(), 1024);
}

TEST(FdBudget, NoSimulatorAdviceWithoutOneAndNoHardLimitNoteBelowIt) {
  const DescriptorBudget b = run_budget(2000, 1, 0, 0, 2);
  const std::string why = descriptor_shortfall(b, {1024, 65536}, "--max-concurrency", 2000);
  EXPECT_NE(why.find("--max-concurrency 2000 needs about"), std::string::npos) << why;
  EXPECT_EQ(why.find("simulator"), std::string::npos) << why;
  EXPECT_EQ(why.find("above the hard limit"), std::string::npos) << why;
  EXPECT_NE(why.find("(hard limit 65536)"), std::string::npos) << why;
}

TEST(FdBudget, InProcessListenersMatchLoopbackNamesWhileRegistered) {
  EXPECT_FALSE(in_process_listener("127.0.0.1", 45678));
  {
    const InProcessListener l("127.0.0.1", 45678, 3);
    EXPECT_EQ(in_process_listener("127.0.0.1", 45678), 3);
    EXPECT_EQ(in_process_listener("localhost", 45678), 3);
    EXPECT_FALSE(in_process_listener("127.0.0.1", 45679));
    EXPECT_FALSE(in_process_listener("10.1.2.3", 45678));
    const InProcessListener any("0.0.0.0", 45680, 1);
    EXPECT_EQ(in_process_listener("127.0.0.1", 45680), 1);
  }
  EXPECT_FALSE(in_process_listener("127.0.0.1", 45678));
  EXPECT_FALSE(in_process_listener("127.0.0.1", 45680));
}

TEST(FdLimit, RaiseLiftsTheSoftLimitToTheHardOne) {
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max < 512) GTEST_SKIP() << "hard limit " << before.rlim_max;
  rlimit low = before;
  low.rlim_cur = 256;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  const DescriptorLimit after = raise_descriptor_limit();
  EXPECT_EQ(after.soft, after.hard);
  EXPECT_EQ(descriptor_limit().soft,
            before.rlim_max == RLIM_INFINITY ? UINT64_MAX : static_cast<uint64_t>(before.rlim_max));
  ASSERT_TRUE(original_soft_limit().has_value());
  setrlimit(RLIMIT_NOFILE, &before);
}

}  // namespace
}  // namespace sb::fd
