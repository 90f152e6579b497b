// Server /metrics scraping: ingestion rules on literal pages, real exposition output from
// Debian's prometheus-node-exporter and prometheus, the simulator's page, and bad URLs.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "canned_server.h"
#include "common/asio.h"
#include "common/manual_time_source.h"
#include "procs.h"
#include "sim/config.h"
#include "sim/server.h"
#include "telemetry/server_scrape.h"
#include "telemetry/telemetry.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;
using testing::CannedServer;
using testing::Child;
using testing::find_binary;
using testing::free_port;
using testing::http_ok;
using testing::wait_for;

TEST(PageIngest, GaugesCountersHistograms) {
  SeriesStore store;
  PageIngest in("server");
  const char* p1 =
      "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 4\n"
      "# TYPE req counter\nreq_total 100\n"
      "# TYPE lat histogram\nlat_bucket{le=\"0.1\"} 1\nlat_bucket{le=\"+Inf\"} 2\nlat_sum "
      "0.5\nlat_count 2\n";
  const char* p2 =
      "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} 6\n"
      "# TYPE req counter\nreq_total 150\n"
      "# TYPE lat histogram\nlat_bucket{le=\"0.1\"} 4\nlat_bucket{le=\"+Inf\"} 7\nlat_sum "
      "1.5\nlat_count 7\n";
  in.ingest(parse_prom_text(p1), 0, store);
  in.ingest(parse_prom_text(p2), 500'000'000, store);
  const auto q = store.points("server/vllm:num_requests_waiting{model_name=\"m\"}");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[1].second, 6);
  const auto rate = store.points("server/req_total");
  ASSERT_EQ(rate.size(), 1u);
  EXPECT_DOUBLE_EQ(rate[0].second, 100.0);  // 50 in 0.5 s
  const auto h = store.histograms_json();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0]["count"], 5);
  EXPECT_EQ(h[0]["buckets"][0][1], 3);
  EXPECT_EQ(h[0]["buckets"][1][1], 5);
  const auto js = store.series_json();
  bool named = false;
  for (const auto& s : js)
    if (s["name"] == "vllm:num_requests_waiting") named = s["report_name"] == "queue depth";
  EXPECT_TRUE(named);
}

TEST(SeriesStore, ItsJsonlLinesAreOneJsonObjectPerPointWithTheSeriesFields) {
  // Each series' fixed part is made once; the lines must still be whole JSON objects with
  // the series' key, labels (escaped), name, source, time and value (null when not finite).
  SeriesStore store;
  std::string streamed;
  store.set_point_sink([&](std::string_view prefix, int64_t t_ns, double v) {
    append_point_jsonl(streamed, prefix, t_ns, v);
  });
  const SeriesMeta m{"server", "q", {{"model", "a \"b\"\\c"}}, "", "", "gauge"};
  store.add(m, 0, 4);
  store.add(m, 1'500'000'000, 2.25);
  store.add(m, 2'000'000'000, std::nan(""));
  const auto dir =
      std::filesystem::temp_directory_path() / ("sb_series_jsonl_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(store.write_jsonl((dir / "t.jsonl").string()));
  std::ifstream in(dir / "t.jsonl");
  const std::string written((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(written, streamed);  // the stream and the store write the same lines
  std::istringstream lines(written);
  std::vector<nlohmann::json> points;
  for (std::string line; std::getline(lines, line);) points.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0]["key"], SeriesStore::key_of(m));
  EXPECT_EQ(points[0]["labels"]["model"], "a \"b\"\\c");
  EXPECT_EQ(points[0]["name"], "q");
  EXPECT_EQ(points[0]["source"], "server");
  EXPECT_TRUE(points[0]["value"].is_number_float());  // 4 is written 4.0, as JSON numbers were
  EXPECT_EQ(points[0]["value"].get<double>(), 4);
  EXPECT_EQ(points[1]["t_s"].get<double>(), 1.5);
  EXPECT_EQ(points[1]["value"].get<double>(), 2.25);
  EXPECT_TRUE(points[2]["value"].is_null());
  const size_t second = written.find('\n') + 1;
  std::string one;
  append_point_jsonl(one, jsonl_prefix(m), 1'500'000'000, 2.25);
  EXPECT_EQ(written.substr(second, written.find('\n', second) + 1 - second), one);
  std::filesystem::remove_all(dir);
}

TEST(RealExposition, NodeExporterPage) {
  const std::string bin =
      find_binary({"/usr/bin/prometheus-node-exporter", "/usr/sbin/prometheus-node-exporter"});
  if (bin.empty())
    GTEST_SKIP() << "prometheus-node-exporter is not installed (scripts/install-deps.sh --test)";
  const int port = free_port();
  Child ne({bin, "--web.listen-address=127.0.0.1:" + std::to_string(port),
            "--collector.disable-defaults", "--collector.cpu", "--collector.meminfo",
            "--collector.loadavg", "--collector.filesystem", "--collector.netdev",
            "--collector.stat"});
  ASSERT_TRUE(ne.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  const net::HttpFetchResult r = wait_for(url, 10s);
  ASSERT_TRUE(r.ok) << r.error;
  const PromPage page = parse_prom_text(r.body);
  EXPECT_EQ(page.bad_lines, 0) << page.errors.front();
  EXPECT_GT(page.samples.size(), 50u);
  EXPECT_EQ(page.family_of("node_cpu_seconds_total").second, PromType::counter);
  EXPECT_NE(page.find("node_memory_MemTotal_bytes"), nullptr);
  EXPECT_EQ(page.family_of("go_gc_duration_seconds").second, PromType::summary);
  EXPECT_NE(page.find("go_gc_duration_seconds", {{"quantile", "0.5"}}), nullptr);
  EXPECT_EQ(page.family_of("promhttp_metric_handler_requests_total").second, PromType::counter);
  // Split anywhere: the same samples (every 97th byte to stay fast).
  for (size_t i = 0; i < r.body.size(); i += 97) {
    PromParser p;
    p.feed(std::string_view(r.body).substr(0, i));
    p.feed(std::string_view(r.body).substr(i));
    p.finish();
    ASSERT_EQ(p.page().samples.size(), page.samples.size()) << "split at " << i;
  }
  // Through the sampler: counters become rates.
  SeriesStore store;
  ServerScrape s(url, "node");
  ASSERT_TRUE(s.scrape(0, store)) << s.counts().last_error;
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(s.scrape(200'000'000, store)) << s.counts().last_error;
  EXPECT_FALSE(store.points("node/node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}").empty());
}

TEST(RealExposition, PrometheusServerPageHasHistograms) {
  const std::string bin = find_binary({"/usr/bin/prometheus"});
  if (bin.empty()) GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh --test)";
  const auto dir = std::filesystem::temp_directory_path() / ("sb-prom-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "prometheus.yml") << "global:\n  scrape_interval: 1s\nscrape_configs: []\n";
  const int port = free_port();
  {
    Child prom({bin, "--config.file=" + (dir / "prometheus.yml").string(),
                "--storage.tsdb.path=" + (dir / "data").string(),
                "--web.listen-address=127.0.0.1:" + std::to_string(port)});
    ASSERT_TRUE(prom.ok());
    const net::HttpFetchResult r =
        wait_for("http://127.0.0.1:" + std::to_string(port) + "/metrics", 20s);
    ASSERT_TRUE(r.ok) << r.error;
    const PromPage page = parse_prom_text(r.body);
    EXPECT_EQ(page.bad_lines, 0) << page.errors.front();
    EXPECT_GT(page.samples.size(), 200u);
    // Every classic histogram family on the page has its +Inf bucket.
    int histograms = 0;
    for (const auto& [family, type] : page.types)
      if (type == PromType::histogram && page.find(family + "_count")) {
        ++histograms;
        EXPECT_NE(page.find(family + "_bucket", {{"le", "+Inf"}}), nullptr) << family;
      }
    EXPECT_GT(histograms, 3);
    EXPECT_FALSE(page.help.empty());
  }
  std::filesystem::remove_all(dir);
}

TEST(RealExposition, SimulatorPageNamesKnownMetrics) {
  sim::SimConfig sc = sim::preset_config("tgi");
  sc.server.host = "127.0.0.1";
  sc.server.port = 0;
  sim::Server server(sc);
  server.start();
  SeriesStore store;
  ServerScrape s(server.url() + "/metrics", "server");
  ASSERT_TRUE(s.scrape(0, store)) << s.counts().last_error;
  EXPECT_EQ(s.last_page().bad_lines, 0);
  EXPECT_EQ(s.last_page().family_of("tgi_request_duration_bucket").second, PromType::histogram);
  EXPECT_FALSE(store.points("server/tgi_queue_size").empty());
  EXPECT_FALSE(readings_from_dcgm(s.last_page()).empty());
  std::map<std::string, int> names;
  for (const auto& j : store.series_json())
    if (j.contains("report_name")) ++names[j["report_name"].get<std::string>()];
  EXPECT_TRUE(names.count("queue depth"));
  EXPECT_TRUE(names.count("running batch"));
  EXPECT_TRUE(names.count("KV-cache use"));
  EXPECT_TRUE(names.count("GPU util"));
  EXPECT_TRUE(names.count("FB used"));
  server.stop();
}

TEST(BadTargets, DownSlowHtmlHugeAreCountedFailures) {
  CannedServer html(http_ok("text/html", "<html><body>login</body></html>"), 0ms);
  CannedServer slow(http_ok("text/plain", "x 1\n"), 1500ms);
  std::string big;
  while (big.size() < 10u << 20) big += "some_metric_with_a_long_name{label=\"value\"} 1\n";
  CannedServer huge(http_ok("text/plain", big), 0ms);
  const std::string down = "http://127.0.0.1:" + std::to_string(free_port()) + "/metrics";
  ScrapeOptions o;
  o.timeout = 300ms;
  SeriesStore store;
  for (const std::string& url : {down, slow.url(), html.url(), huge.url()}) {
    ServerScrape s(url, "x", o);
    const auto t0 = Clock::now();
    EXPECT_FALSE(s.scrape(0, store)) << url;
    EXPECT_LT(Clock::now() - t0, 1s) << url;
    EXPECT_EQ(s.counts().failed, 1) << url;
    EXPECT_FALSE(s.counts().last_error.empty()) << url;
  }
  // In the samplers: counted and shown, never fatal, the clock's other samplers go on. Ticks
  // on a manual clock: 0, 100, 200, 300, 400 ms, each taken before the next (3 samplers).
  ManualTimeSource clock;
  TelemetryConfig c;
  c.interval = 100ms;
  c.gpu = GpuMode::off;
  c.server_urls = {down, html.url()};
  c.scrape = o;
  c.time_source = &clock;
  Telemetry t(c);
  t.open();
  t.start(clock.now());
  for (int k = 1; k <= 4; ++k) {
    ASSERT_TRUE(clock.wait_for_sleepers(3));
    clock.advance(100ms);
  }
  ASSERT_TRUE(clock.wait_for_sleepers(3));
  t.stop();
  const auto j = t.to_json();
  // 5 ticks, and the last scrape stop() takes after the load (the histograms' end point).
  EXPECT_EQ(j["sources"][1]["failed"].get<int>(), 6);
  EXPECT_EQ(j["sources"][2]["failed"].get<int>(), 6);
  EXPECT_EQ(j["warnings"].size(), 2u);
  EXPECT_EQ(t.store().points("host/rss_bytes{process=\"client\"}").size(), 5u);
}

}  // namespace
}  // namespace sb::telemetry
