// What calibrate writes: FIT.yaml is a preset file (sim --config / --sim FILE) with the base
// preset, the base file's own values and the fitted parameters, and a header naming the runs
// and the residuals; FIT.residuals.json holds the error table, its numbers consistent with the
// runs' summary.json (measured), with each other (errors, statistics) and with the printed table.
#include <cmath>

#include "calibrate_support.h"
#include "common/error.h"
#include "metrics/distribution.h"
#include "plan/providers.h"

namespace sb::testing {
namespace {

TEST(CalibrateFiles, PresetFileAndResidualsAreConsistentWithTheRuns) {
  const Scratch s("files");
  const fs::path runs = s.dir() / "runs";
  const auto sweep = run_servebench(fmt::format(
      "predict sweep --sim tgi --api tgi --input-length 120 --output-length 24 --ignore-eos "
      "-n 20 --concurrency 1,2,6 -o {} -q",
      runs.string()));
  ASSERT_EQ(sweep.code, 0) << sweep.out;
  const fs::path base = s.write("base.yaml", "preset: tgi\nmax_batch_size: 16\nmfu: 0.5\n");
  const fs::path fit = s.dir() / "fit.yaml";
  const auto cal = run_servebench(fmt::format("calibrate {} --preset {} --max-evaluations 80 -o {}",
                                              runs.string(), base.string(), fit.string()));
  ASSERT_EQ(cal.code, 0) << cal.out;

  // The preset file: loadable, the base's own values kept, the fitted ones set.
  const sim::PresetFile pf = sim::read_preset_file(fit.string());
  EXPECT_EQ(pf.preset, "tgi");
  const auto values = fitted_values(fit);
  EXPECT_EQ(values.at("max_batch_size"), 16) << "the base file's value, not fitted, kept";
  EXPECT_TRUE(values.count("bandwidth-efficiency") && values.count("waiting-served-ratio"));
  const sim::SimConfig c = sim::preset_or_file_config(fit.string());
  EXPECT_EQ(c.sched.max_batch_size, 16);
  EXPECT_DOUBLE_EQ(c.gpu.mfu, values.at("mfu"));
  std::ifstream in(fit);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* level : {"c1", "c2", "c6"})
    EXPECT_NE(text.find((runs / level).string() + " (" + level + ")"), std::string::npos) << text;
  EXPECT_NE(text.find("# residuals over 30 figures"), std::string::npos) << text;

  // The residuals: measured = summary.json, error = predicted / measured - 1, statistics.
  const auto r = read_json(s.dir() / "fit.residuals.json");
  ASSERT_EQ(r["levels"].size(), 3u);
  std::vector<double> all_abs;
  for (const auto& l : r["levels"]) {
    const auto sum = read_json(fs::path(l["dir"].get<std::string>()) / "summary.json");
    const auto& m = l["metrics"];
    EXPECT_DOUBLE_EQ(m["ttft_p50_ms"]["measured"].get<double>(),
                     sum["metrics"]["ttft_ms"]["p50"].get<double>());
    EXPECT_DOUBLE_EQ(m["e2e_p99_ms"]["measured"].get<double>(),
                     sum["metrics"]["e2e_ms"]["p99"].get<double>());
    EXPECT_DOUBLE_EQ(m["output_tokens_per_s"]["measured"].get<double>(),
                     sum["throughput"]["output_tokens_per_s"].get<double>());
    for (const auto& [name, v] : m.items()) {
      const double e = v["predicted"].get<double>() / v["measured"].get<double>() - 1;
      EXPECT_NEAR(v["error"].get<double>(), e, 1e-12) << name;
      all_abs.push_back(std::abs(e));
    }
  }
  std::sort(all_abs.begin(), all_abs.end());
  EXPECT_EQ(r["all"]["count"], 30);
  EXPECT_NEAR(r["all"]["p90_abs"].get<double>(), metrics::percentile_sorted(all_abs, 90), 1e-12);
  double tpot_sum = 0;
  for (const auto& l : r["levels"])
    tpot_sum += std::abs(l["metrics"]["tpot_p50_ms"]["error"].get<double>());
  EXPECT_NEAR(r["per_metric"]["tpot_p50_ms"]["mean_abs"].get<double>(), tpot_sum / 3, 1e-12);
  EXPECT_LE(r["objective"]["fitted"].get<double>(), r["objective"]["start"].get<double>());

  // The printed table: every level and metric, and the all-figures row.
  for (const char* want : {"c1 meas/pred", "c6", "tpot_p99_ms", "output_tokens_per_s",
                           "all (mean |error|)", "waiting-served-ratio"})
    EXPECT_NE(cal.out.find(want), std::string::npos) << want << "\n" << cal.out;
}

TEST(PresetFiles, PresetOrFileAcceptsBothAndNamesBadKeys) {
  EXPECT_FALSE(sim::is_preset_file("tgi"));
  EXPECT_TRUE(sim::is_preset_file("fit.yaml"));
  EXPECT_TRUE(sim::is_preset_file("fit.yml"));
  EXPECT_TRUE(sim::is_preset_file("./presets/fit"));
  EXPECT_EQ(sim::preset_or_file_config("pytorch").server.preset, "pytorch");
  const Scratch s("presetfile");
  const fs::path f = s.write("p.yaml", "preset: fastapi\nstep-overhead-ms: 9.5\noverhead_ms: 3\n");
  const sim::SimConfig c = sim::preset_or_file_config(f.string());
  EXPECT_EQ(c.server.preset, "fastapi");
  EXPECT_DOUBLE_EQ(c.cost.step_overhead_ms, 9.5);
  EXPECT_DOUBLE_EQ(c.sched.overhead_ms, 3);
  EXPECT_TRUE(c.sched.serial_lock) << "the rest is the base preset's";
  const fs::path bad = s.write("bad.yaml", "preset: tgi\nstep_overhead: 1\n");
  try {
    sim::preset_or_file_config(bad.string());
    ADD_FAILURE() << "no error";
  } catch (const sb::Error& e) {
    EXPECT_EQ(e.code(), sb::ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("unknown key 'step_overhead'"), std::string::npos)
        << e.what();
  }
  // The same file through --sim: a usage error of the run.
  const auto r = run_servebench(fmt::format("predict prof --sim {} --api tgi -n 2 -o {} -q",
                                            bad.string(), (s.dir() / "run").string()));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("step_overhead"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sb::testing

namespace sb::testing {
namespace {

// providers.yaml `sim: FILE.yaml`: a preset file is accepted where a preset is, and a bad one
// is an error naming the field and the file's problem.
TEST(PresetFiles, ProvidersAcceptAPresetFile) {
  const Scratch s("providers");
  const fs::path fit = s.write("fit.yaml", "preset: tgi\nmfu: 0.4\n");
  const auto ok = plan::parse_providers_text(
      fmt::format("providers:\n  - id: fitted\n    sim: {}\n", fit.string()), "providers.yaml");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].sim, fit.string());
  const fs::path bad = s.write("bad.yaml", "preset: tgi\nmfu: lots\n");
  try {
    plan::parse_providers_text(
        fmt::format("providers:\n  - id: fitted\n    sim: {}\n", bad.string()), "providers.yaml");
    ADD_FAILURE() << "no error";
  } catch (const sb::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("providers[0] (fitted).sim"), std::string::npos) << m;
    EXPECT_NE(m.find("mfu 'lots' is not a number"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace sb::testing
