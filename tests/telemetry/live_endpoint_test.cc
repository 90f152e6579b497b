// The live endpoint: LiveMetrics text parses with our parser; a real Prometheus (Debian's
// `prometheus`, generated config, loopback) scrapes `servebench prof --metrics-port` during
// a run and its query API returns the series.
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "procs.h"
#include "telemetry/live_metrics.h"
#include "telemetry/metrics_server.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;
using testing::Child;

metrics::RequestRecord record(int status, ErrorClass ec) {
  metrics::RequestRecord r;
  r.status = status;
  r.error_class = ec;
  r.t_send_ns = 0;
  r.t_first_ns = 50'000'000;
  r.t_last_ns = r.t_end_ns = 250'000'000;
  r.output_tokens = 11;
  r.input_tokens = 7;
  return r;
}

TEST(LiveMetrics, RendersParsableTextFromManyThreads) {
  LiveMetrics m("sim:tgi", "in256/out128");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        m.observe(record(i % 10 ? 200 : 503, i % 10 ? ErrorClass::ok : ErrorClass::overloaded));
    });
  for (auto& t : threads) t.join();
  m.set_in_flight(3);
  m.set_gpu({GpuReading{.index = 0, .name = "x", .mem_used_bytes = 1e9}});
  MetricsServer server("127.0.0.1", 0, [&] { return m.render(); });
  server.start();
  const net::HttpFetchResult r = net::http_fetch(server.url());
  ASSERT_TRUE(r.ok) << r.error;
  const PromPage p = parse_prom_text(r.body);
  EXPECT_EQ(p.bad_lines, 0) << p.errors.front();
  EXPECT_EQ(p.find("servebench_requests_total", {{"status_class", "2xx"}})->value, 3600);
  EXPECT_EQ(p.find("servebench_errors_total", {{"class", "overloaded"}})->value, 400);
  EXPECT_EQ(p.find("servebench_output_tokens_total")->value, 44000);
  EXPECT_EQ(p.find("servebench_in_flight_requests")->value, 3);
  EXPECT_EQ(p.find("api_request_duration_seconds_count",
                   {{"framework", "sim:tgi"}, {"status_class", "2xx"}})
                ->value,
            3600);
  EXPECT_EQ(p.find("servebench_request_duration_seconds_bucket",
                   {{"le", "0.25"}, {"status_class", "5xx"}})
                ->value,
            400);
  EXPECT_EQ(p.find("servebench_ttft_seconds_bucket", {{"le", "0.05"}})->value, 4000);
  EXPECT_EQ(p.find("gpu_memory_used_bytes", {{"device", "0"}})->value, 1e9);
  EXPECT_EQ(p.family_of("servebench_tpot_seconds_bucket").second, PromType::histogram);
  EXPECT_FALSE(net::http_fetch(server.url().substr(0, server.url().size() - 8) + "/nope").ok);
  server.stop();
}

TEST(LiveMetrics, LabelValuesAreEscapedAndEachFamilyIsDescribedOnce) {
  LiveMetrics m("a\"b\\c", "line\nbreak");
  m.observe(record(200, ErrorClass::ok));
  const std::string text = m.render();
  const PromPage p = parse_prom_text(text);
  EXPECT_EQ(p.bad_lines, 0) << p.errors.front();
  const PromSample* s = p.find("servebench_requests_total", {{"status_class", "2xx"}});
  ASSERT_NE(s, nullptr) << text;
  EXPECT_EQ(label(s->labels, "provider"), "a\"b\\c");
  EXPECT_EQ(label(s->labels, "scenario"), "line\nbreak");
  EXPECT_EQ(s->value, 1);
  // One TYPE line per family; no GPU families without GPU readings.
  size_t types = 0;
  for (size_t at = text.find("# TYPE servebench_ttft_seconds "); at != std::string::npos;
       at = text.find("# TYPE servebench_ttft_seconds ", at + 1))
    ++types;
  EXPECT_EQ(types, 1u);
  EXPECT_EQ(text.find("gpu_"), std::string::npos);
}

TEST(LiveEndpoint, RealPrometheusScrapesAProfRun) {
  const std::string bin = testing::find_binary({"/usr/bin/prometheus"});
  if (bin.empty()) GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh --test)";
  const int live_port = testing::free_port(), prom_port = testing::free_port();
  const auto dir = std::filesystem::temp_directory_path() / ("sb-live-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "prometheus.yml")
      << "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n"
         "  - job_name: servebench\n    static_configs:\n      - targets: ['127.0.0.1:"
      << live_port << "']\n";
  Child prom({bin, "--config.file=" + (dir / "prometheus.yml").string(),
              "--storage.tsdb.path=" + (dir / "data").string(),
              "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)});
  ASSERT_TRUE(prom.ok());
  const std::string api = "http://127.0.0.1:" + std::to_string(prom_port);
  ASSERT_TRUE(testing::wait_for(api + "/-/ready", 20s).ok);
  {
    Child run({SERVEBENCH_BINARY, "prof", "--sim", "tgi", "--sim-time-scale", "0.05",
               "--concurrency", "4", "--duration", "60s", "--no-progress", "-q", "--metrics-port",
               std::to_string(live_port), "--gpu-telemetry", "off", "-o", (dir / "run").string()});
    ASSERT_TRUE(run.ok());
    ASSERT_TRUE(
        testing::wait_for("http://127.0.0.1:" + std::to_string(live_port) + "/metrics", 30s).ok);
    // Query while the run goes (it is stopped by SIGTERM when found): the counter must appear
    // with our labels. Prometheus offsets a target's first scrape by up to one interval, and a
    // loaded CI machine is slow, so the window is generous.
    nlohmann::json result;
    const auto end = std::chrono::steady_clock::now() + 45s;
    while (std::chrono::steady_clock::now() < end) {
      const net::HttpFetchResult r =
          net::http_fetch(api + "/api/v1/query?query=servebench_requests_total");
      if (r.ok) {
        const auto j = nlohmann::json::parse(r.body, nullptr, false);
        if (!j.is_discarded() && j["status"] == "success" && !j["data"]["result"].empty()) {
          result = j["data"]["result"];
          break;
        }
      }
      std::this_thread::sleep_for(250ms);
    }
    ASSERT_FALSE(result.is_null())
        << "Prometheus never returned servebench_requests_total; targets: "
        << net::http_fetch(api + "/api/v1/targets").body;
    bool ok_series = false;
    for (const auto& s : result)
      if (s["metric"]["status_class"] == "2xx" && s["metric"]["provider"] == "sim:tgi" &&
          s["metric"]["job"] == "servebench")
        ok_series = std::stod(s["value"][1].get<std::string>()) > 0;
    EXPECT_TRUE(ok_series) << result.dump();
    const net::HttpFetchResult h = net::http_fetch(
        api +
        "/api/v1/query?query=api_request_duration_seconds_count%7Bframework%3D%22sim%3Atgi%22%7D");
    ASSERT_TRUE(h.ok) << h.error;
    EXPECT_NE(h.body.find("\"framework\":\"sim:tgi\""), std::string::npos) << h.body;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sb::telemetry
