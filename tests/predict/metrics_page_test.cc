// A predicted run's telemetry ingests the simulator's /metrics page as data (SimMetrics::
// fill_page), where a live scrape parses the text the live simulator serves (render): the two
// must be the same page, or predicted and live telemetry would differ.
#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/metrics.h"
#include "telemetry/prom_text.h"

namespace sb {
namespace {

TEST(SimMetricsPage, TheDataAVirtualRunIngestsIsWhatTheLiveScrapeParses) {
  for (const char* preset : {"tgi", "pytorch", "fastapi"}) {
    sim::SimConfig c = sim::preset_config(preset);
    c.model.name = "org/a \"quoted\" model";
    const TimePoint start = Clock::now();
    sim::SimMetrics live(c, start), virt(c, start);
    for (sim::SimMetrics* m : {&live, &virt}) {
      m->observe_request(true, 1.7, 0.12, 200, 50);
      m->observe_request(false, 0.3, -1, 100, 0);
      m->observe_phases(0.05, 0.07, 1.58);
    }
    sim::SchedStats s;
    s.waiting = 3;
    s.running = 7;
    s.kv_used_tokens = 1234;
    s.kv_capacity_tokens = 40000;
    s.batch_max_tokens = 1750;
    s.resident_kv_tokens = 1500;
    s.busy_total = std::chrono::milliseconds(1337);
    PromPage page;
    for (int scrape = 1; scrape <= 2; ++scrape) {  // the second refills the first's page
      const TimePoint now = start + std::chrono::seconds(scrape * 2);
      s.busy_total += std::chrono::milliseconds(700);
      const PromPage parsed = telemetry::parse_prom_text(live.render(s, now));
      virt.fill_page(s, now, page);
      SCOPED_TRACE(preset);
      EXPECT_EQ(parsed.bad_lines, 0);
      EXPECT_EQ(page.samples, parsed.samples);
      EXPECT_EQ(page.types, parsed.types);
      EXPECT_EQ(page.help, parsed.help);
      ASSERT_NE(page.find("vllm:num_requests_running"), nullptr);
      EXPECT_EQ(page.find("vllm:num_requests_running")->value, 7);
      EXPECT_EQ(page.find("tgi_request_duration_count")->value, 1);
    }
  }
}

}  // namespace
}  // namespace sb
