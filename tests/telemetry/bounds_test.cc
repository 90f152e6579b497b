// issue 20, bounded telemetry: a cap on the series kept per server /metrics source, and a hung
// nvidia-smi that never holds the end of a run.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "canned_server.h"
#include "common/manual_time_source.h"
#include "telemetry/gpu_source.h"
#include "telemetry/server_scrape.h"
#include "telemetry/telemetry.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A /metrics page of `n` gauges, plus a histogram and a counter named first.
std::string page_of(int n, double value) {
  std::string p = fmt::format(
      "# TYPE lat histogram\nlat_bucket{{le=\"1\"}} {0}\nlat_bucket{{le=\"+Inf\"}} {0}\n"
      "lat_sum {0}\nlat_count {0}\n# TYPE req counter\nreq_total {0}\n# TYPE g gauge\n",
      value);
  for (int i = 0; i < n; ++i) p += fmt::format("g{{series=\"{}\"}} {}\n", i, value);
  return p;
}

TEST(SeriesCap, AGeneratedPageOf5000SeriesKeepsTheFirst2000) {
  SeriesStore store;
  PageIngest in("server");
  in.ingest(parse_prom_text(page_of(5000, 1)), 0, store);
  in.ingest(parse_prom_text(page_of(5000, 2)), 1'000'000'000, store);
  // The histogram (one series) and the counter come first; 1998 gauges fill the cap.
  EXPECT_EQ(store.series_count(), 1999u);  // the histogram is kept apart from the points
  EXPECT_EQ(store.histograms_json().size(), 1u);
  EXPECT_EQ(store.points("server/req_total").size(), 1u);  // a rate from the second page
  EXPECT_EQ(store.points("server/g{series=\"1997\"}").size(), 2u);
  EXPECT_TRUE(store.points("server/g{series=\"1998\"}").empty());
  EXPECT_TRUE(store.points("server/g{series=\"4999\"}").empty());
  EXPECT_EQ(in.dropped_series(), 3002u);  // 5002 series on the page, 2000 kept
}

TEST(SeriesCap, KeptSeriesStayWhenThePageChanges) {
  SeriesStore store;
  PageIngest in("server", 3);
  in.ingest(parse_prom_text("a 1\nb 1\nc 1\n"), 0, store);
  in.ingest(parse_prom_text("d 1\na 2\ne 1\nc 2\n"), 1, store);  // d, e: new, over the cap
  EXPECT_EQ(store.keys(), (std::vector<std::string>{"server/a", "server/b", "server/c"}));
  EXPECT_EQ(store.points("server/a").size(), 2u);
  EXPECT_EQ(in.dropped_series(), 2u);
}

TEST(SeriesCap, TheSamplerWarnsOnceWithTheCount) {
  testing::CannedServer big(testing::http_ok("text/plain", page_of(5000, 1)), 0ms);
  ManualTimeSource clock;
  TelemetryConfig c;
  c.interval = 100ms;
  c.gpu = GpuMode::off;
  c.host = false;
  c.server_urls = {big.url()};
  c.time_source = &clock;
  Telemetry t(c);
  t.open();
  t.start(clock.now());
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(clock.wait_for_sleepers(1));
    clock.advance(100ms);
  }
  ASSERT_TRUE(clock.wait_for_sleepers(1));
  t.stop();
  EXPECT_EQ(t.store().series_count(), 1999u);
  const auto j = t.to_json();
  EXPECT_EQ(j["sources"][1]["ok"], 5);  // 4 ticks and the last scrape that stop() takes
  EXPECT_EQ(j["sources"][1]["dropped_series"], 3002);
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"].dump();
  EXPECT_EQ(j["warnings"][0], fmt::format("server /metrics {} has more than 2000 series; the rest "
                                          "are dropped (3002 not kept)",
                                          big.url()));
}

struct ScopedEnv {
  ScopedEnv(const char* k, const std::string& v) : key(k) { setenv(k, v.c_str(), 1); }
  ~ScopedEnv() { unsetenv(key); }
  const char* key;
};

// A fake nvidia-smi that prints `lines` query lines, then hangs: it and its child ignore
// SIGTERM (only SIGKILL ends them) and the child holds the pipe open. Writes the shell's pid
// and the child's pid to PIDS.
struct HungNvidiaSmi {
  explicit HungNvidiaSmi(int lines) {
    dir = fs::temp_directory_path() /
          ("sb_hung_smi_" + std::to_string(getpid()) + "_" + std::to_string(lines));
    fs::create_directories(dir);
    script = dir / "nvidia-smi";
    std::ofstream(script) << "#!/bin/sh\ntrap '' TERM\n"
                          << "i=0; while [ $i -lt " << lines
                          << " ]; do echo '0, Fake, 55, 22, 100, 200, 80.5, 50, 1500'; "
                             "i=$((i+1)); done\nsleep 100000 &\necho $$ $! > "
                          << (dir / "pids").string() << "\nwait\n";
    fs::permissions(script, fs::perms::owner_all);
  }
  ~HungNvidiaSmi() { fs::remove_all(dir); }
  std::vector<pid_t> pids() const {
    std::ifstream in(dir / "pids");
    std::vector<pid_t> out;
    for (pid_t p; in >> p;) out.push_back(p);
    return out;
  }
  fs::path dir, script;
};

// Gone or a zombie (killed, not yet reaped by its new parent).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto close = text.rfind(')');
  return close != std::string::npos && text.substr(close + 2, 1) == "Z";
}

bool ended_within(pid_t pid, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!ended(pid) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  return ended(pid);
}

TEST(HungNvidiaSmiTest, TheEndOfTheRunIsNotHeldAndTheChildIsKilled) {
  HungNvidiaSmi fake(0);  // prints nothing at all
  ScopedEnv bin("SERVEBENCH_NVIDIA_SMI", fake.script.string());
  TelemetryConfig c;
  c.interval = 50ms;
  c.gpu = GpuMode::nvidia_smi;
  c.host = false;
  auto t = std::make_unique<Telemetry>(c);
  EXPECT_TRUE(t->open().empty());
  t->start(Clock::now());
  std::vector<pid_t> pids;
  for (int i = 0; i < 500 && pids.size() < 2; ++i) {  // the script has started
    std::this_thread::sleep_for(10ms);
    pids = fake.pids();
  }
  ASSERT_EQ(pids.size(), 2u);
  // stop() and the destructor return although the child ignores SIGTERM and holds the pipe
  // (before: the destructor waited for the pipe's end forever). The wait only bounds a hang.
  auto done = std::async(std::launch::async, [&t] {
    t->stop();
    t.reset();
  });
  ASSERT_EQ(done.wait_for(60s), std::future_status::ready);
  EXPECT_TRUE(ended_within(pids[0], 10s)) << "nvidia-smi " << pids[0];
  EXPECT_TRUE(ended_within(pids[1], 10s)) << "its child " << pids[1];
}

TEST(HungNvidiaSmiTest, SilentChildIsKilledAfterTheReadTimeoutAndSamplesFail) {
  HungNvidiaSmi fake(1);  // one line, then silence
  ScopedEnv bin("SERVEBENCH_NVIDIA_SMI", fake.script.string());
  std::string error;
  auto src = open_nvidia_smi(100ms, error, 300ms);
  ASSERT_TRUE(src) << error;
  std::vector<GpuReading> r;
  // Real time bounds the waits only: the line arrives, then the silence ends the child.
  bool got = false;
  for (int i = 0; i < 1000 && !got; ++i) {
    got = src->sample(r, error);
    if (!got) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(got) << error;
  EXPECT_EQ(r.at(0).sm_util_pct, 55);
  for (int i = 0; i < 3000 && src->sample(r, error); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(src->sample(r, error));
  EXPECT_EQ(error, "nvidia-smi wrote nothing for 0.3 s; killed");
  const auto pids = fake.pids();
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_TRUE(ended_within(pids[0], 10s));
  EXPECT_TRUE(ended_within(pids[1], 10s));
  src.reset();  // reaps; returns at once
}

}  // namespace
}  // namespace sb::telemetry
