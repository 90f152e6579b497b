// The saturation search against the simulator's TGI preset: the knee it finds is within one
// step (a factor of 2) of the one the cost model predicts from the preset's configuration.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../support/timing_slack.h"
#include "plan/plan_runner.h"
#include "sim/config.h"
#include "sim/cost_model.h"
#include "sim/preset_file.h"

namespace sb::plan {
namespace {

// Continuous batching serves up to B requests per decode step. Adding concurrency raises
// throughput until the running batch stops growing, which happens at the smallest of:
//   - max_batch_size (the scheduler's cap);
//   - the KV cache: kv_capacity_tokens / (prompt + output tokens) requests fit at once;
//   - the compute bound: the first batch size whose step costs more than the weight read
//     (beyond it a step's cost grows with the batch, so tokens/s stops growing).
double predicted_knee(const sim::SimConfig& c, int64_t prompt_tokens, int64_t output_tokens) {
  const sim::CostModel m(c);
  double knee = c.sched.max_batch_size;
  knee =
      std::min(knee, static_cast<double>(m.kv_capacity_tokens() / (prompt_tokens + output_tokens)));
  int64_t b = 1;
  while (b < 100000 && m.decode_step(b + 1, 0) <= m.decode_step(1, 0)) ++b;
  return std::min(knee, static_cast<double>(b));
}

TEST(SaturationSim, FindsTheKneeOfTheTgiPresetWithinOneStep) {
  const int64_t in = 32, out = 32;
  // The tgi preset without its router cap (queue-limit 96 + a batch of 32 = TGI's
  // --max-concurrent-requests 128): at c128 the cap is reached exactly, and a request sent
  // back before the server dequeued its predecessor was refused with 429 (under ASan, whose
  // slower client lets more of them overlap, the search stopped at c128 on "errors"). The
  // search is to find the knee of throughput, not the cap's first refusal.
  const auto preset_file = std::filesystem::temp_directory_path() / "sb_saturation_sim_tgi.yaml";
  {
    std::ofstream f(preset_file);
    f << "preset: tgi\nqueue-limit: 0\n";
  }
  const sim::SimConfig tgi = sim::preset_or_file_config(preset_file.string());
  ASSERT_EQ(tgi.sched.queue_limit, 0);
  const double expected = predicted_knee(tgi, in, out);
  ASSERT_GT(expected, 4);

  const auto dir = std::filesystem::temp_directory_path() / "sb_saturation_sim";
  std::filesystem::remove_all(dir);
  Stage stage;
  stage.name = "knee";
  stage.kind = StageKind::sweep;
  stage.concurrency = {1};
  stage.until_saturation = true;
  stage.requests_per_level = 4;
  stage.saturation.max_level = 256;
  StageTarget t;
  t.provider = "tgi";
  t.base.sim.preset = preset_file.string();
  // A closed loop underfills the batch by each request's turnaround in the client. At 0.1
  // (3 ms steps) a loaded machine's turnaround left c64 bimodal (234 or 253 req/s) and the
  // knee at c128 as often as not; at 0.4 the plain build finds c32 -> c64 flat (+2%, three
  // of three). Under sanitizers (SERVEBENCH_SANITIZED=1) the turnaround is many times
  // longer: at 0.4 c64 -> c128 still gained 20%; real-time steps (about 30 ms) give -1%.
  t.base.sim.time_scale = testing::sanitized() ? 1.0 : 0.4;
  auto& e = t.base.engine;
  e.adapter.api = protocol::Api::tgi;
  e.workload.input_tokens = in;
  e.workload.output_tokens = out;
  e.workers = 2;
  e.timeouts.total = std::chrono::seconds(30);
  PlanIndex index(dir.string(), "t");
  StageRunContext ctx;
  ctx.out_dir = dir.string();
  ctx.quiet = true;
  ctx.index = &index;
  stage.warmup = 0;
  std::filesystem::create_directories(dir);
  run_stage(stage, t, ctx);

  ASSERT_EQ(index.searches().size(), 1u);
  const SearchRow& s = index.searches()[0];
  std::string levels;
  for (const auto& r : index.runs())
    levels += fmt::format(" c{:g}: {:.1f} req/s p50 e2e {:.0f} ms;", r.load_level,
                          r.headline.qps.value_or(0), r.headline.e2e_p50_ms.value_or(0));
  const std::string measured = fmt::format("predicted knee {:g}, measured{}", expected, levels);
  std::printf("%s stop: %s\n", measured.c_str(), s.stop_reason.c_str());
  SCOPED_TRACE(measured);
  EXPECT_EQ(s.stop_reason, "saturated");
  ASSERT_TRUE(s.knee);
  EXPECT_LE(std::abs(std::log2(*s.knee) - std::log2(expected)), 1.0 + 1e-9);
  EXPECT_GT(s.peak_qps, 0);
  // Past the knee throughput is a plateau, so where exactly its peak falls is noise
  // (under ASan c128 beat c64 by 0.7%); what must hold is that no level beyond one
  // step past the predicted knee gains more than 10% over the best level up to it.
  double best_near_knee = 0;
  for (const auto& r : index.runs())
    if (r.load_level <= 2 * expected)
      best_near_knee = std::max(best_near_knee, r.headline.qps.value_or(0));
  EXPECT_LE(s.peak_qps, 1.10 * best_near_knee);
  ASSERT_TRUE(s.max_stable);  // no SLO: every level without errors is stable
  EXPECT_GE(*s.max_stable, *s.knee);
  EXPECT_EQ(ctx.first_failure, 0);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(preset_file);
}

}  // namespace
}  // namespace sb::plan
