// The plan runner's levels (plan_runner.cc run_level, run_stage): the requests a closed-loop level
// keeps under --scale, and a saturation search over levels that measured one wave. The runs go
// to a recording executor (the RunExecutor seam) whose outcomes model a server that batches up
// to 32 requests, so that the test sees what each level asked for without a server.
#include <unistd.h>

#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "plan/plan_runner.h"
#include "plan/run_executor.h"

namespace sb::plan {
namespace {

// Serves up to 32 requests at once, 0.5 s each. A level given fewer than 2 requests per client
// sends them all at once: the "throughput" of that one wave is requests / (the time of the
// slowest), far above the sustained rate when the wave fits in the batch.
class BatchingExecutor : public RunExecutor {
 public:
  std::map<int64_t, int64_t> requests_at;  // concurrency -> num_requests asked for

  RunOutcome execute(const RunSpec& spec, const std::atomic<bool>*) override {
    const auto& l = spec.engine.load;
    requests_at[l.concurrency] = l.num_requests;
    const double c = static_cast<double>(l.concurrency);
    const double n = static_cast<double>(l.num_requests);
    RunOutcome out;
    out.ok = true;
    out.slo_met = true;
    out.headline.requests = out.headline.ok = l.num_requests;
    out.headline.error_rate = 0;
    const double sustained_qps = std::min(c, 32.0) / 0.5;
    const bool one_wave = n < 2 * c;
    out.headline.qps = one_wave ? n / 0.5 : sustained_qps;
    out.headline.e2e_p50_ms = one_wave ? 500 : 1000 * c / sustained_qps;
    return out;
  }
  bool real_time() const override { return false; }
};

std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() /
                 ("sb_stage_levels_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

struct Fixture {
  std::filesystem::path dir;
  PlanIndex index;
  BatchingExecutor exec;
  StageRunContext ctx;
  StageTarget target;
  explicit Fixture(const std::string& name) : dir(fresh_dir(name)), index(dir.string(), "t") {
    ctx.out_dir = dir.string();
    ctx.quiet = true;
    ctx.index = &index;
    ctx.executor = &exec;
    target.provider = "fake";
  }
  ~Fixture() { std::filesystem::remove_all(dir); }
};

TEST(StageLevels, AScaledClosedLoopLevelKeepsTwoRequestsPerClientWhereThePlanHadThem) {
  Fixture f("scale");
  f.ctx.scale = 0.1;
  Stage stage;
  stage.name = "peak";
  stage.kind = StageKind::sweep;
  stage.concurrency = {8, 64};
  stage.requests_per_level = 10;  // 80 and 640, x 0.1 = 8 and 64: one wave each
  run_stage(stage, f.target, f.ctx);
  EXPECT_EQ(f.exec.requests_at[8], 16);
  EXPECT_EQ(f.exec.requests_at[64], 128);

  Fixture g("scale_one");  // the unscaled plan itself sends one per client: kept, not raised
  g.ctx.scale = 0.1;
  stage.requests_per_level = 1;
  run_stage(stage, g.target, g.ctx);
  EXPECT_EQ(g.exec.requests_at[8], 8);
  EXPECT_EQ(g.exec.requests_at[64], 64);
}

TEST(StageLevels, ASaturationSearchOverOneWaveLevelsNamesThemAndRanksNone) {
  Fixture f("waves");
  Stage stage;
  stage.name = "knee";
  stage.kind = StageKind::sweep;
  stage.concurrency = {16};
  stage.until_saturation = true;
  stage.saturation.max_level = 128;
  stage.requests_per_level = 1;  // every level one wave
  run_stage(stage, f.target, f.ctx);
  ASSERT_EQ(f.index.searches().size(), 1u);
  const SearchRow& s = f.index.searches()[0];
  EXPECT_EQ(s.one_wave, (std::vector<double>{16, 32, 64, 128}));
  EXPECT_FALSE(s.knee);
  EXPECT_EQ(s.peak_qps, 0);  // 128 / 0.5 s = 256 "req/s" at c128 is a wave, not a peak
  EXPECT_EQ(s.stop_reason, "max_level");

  Fixture g("sustained");  // the same search with 4 per client finds the batch's knee
  stage.requests_per_level = 4;
  run_stage(stage, g.target, g.ctx);
  const SearchRow& t = g.index.searches()[0];
  EXPECT_TRUE(t.one_wave.empty());
  ASSERT_TRUE(t.knee);
  EXPECT_EQ(*t.knee, 32);
  EXPECT_DOUBLE_EQ(t.peak_qps, 64);
  EXPECT_EQ(t.peak_level, 32);
}

}  // namespace
}  // namespace sb::plan
