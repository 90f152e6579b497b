#include "cli/calibrate_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibrate/calibrate.h"
#include "calibrate/fit_output.h"
#include "calibrate/replay.h"
#include "common/error.h"
#include "sim/preset_file.h"

namespace sb::cli {
namespace {

namespace fs = std::filesystem;

struct CalibrateFlags {
  std::vector<std::string> dirs;
  std::string preset = "tgi";
  std::string output;
  double length_tolerance = 0.25;
  int max_evaluations = 2000;
  bool quiet = false;
};

// A run folder as given, or the run folders directly inside an output folder (a sweep's
// levels, a plan's runs), sorted.
std::vector<std::string> expand_dirs(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const std::string& d : given) {
    std::error_code ec;
    if (fs::exists(fs::path(d) / "summary.json", ec) || !fs::is_directory(d, ec)) {
      out.push_back(d);
      continue;
    }
    std::vector<std::string> inner;
    for (const auto& e : fs::directory_iterator(d, ec))
      if (e.is_directory() && fs::exists(e.path() / "summary.json"))
        inner.push_back(e.path().string());
    std::sort(inner.begin(), inner.end());
    if (inner.empty()) out.push_back(d);  // read_measured_run says what is missing
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}

calibrate::BaseOrigin origin_of(const std::string& base) {
  calibrate::BaseOrigin o{base, base, {}};
  if (!sim::is_preset_file(base)) return o;
  const sim::PresetFile f = sim::read_preset_file(base, "--preset");
  o.preset = f.preset.value_or("tgi");
  o.values = f.values;
  return o;
}

std::string residuals_path(const std::string& yaml) {
  fs::path p(yaml);
  if (p.extension() == ".yaml" || p.extension() == ".yml") p.replace_extension();
  return p.string() + ".residuals.json";
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw usage_error(fmt::format("calibrate: cannot write '{}'", path));
}

int run_calibrate(const CalibrateFlags& f) {
  if (f.output.empty()) throw usage_error("calibrate: -o FIT.yaml is required");
  std::vector<calibrate::MeasuredRun> runs;
  for (const std::string& d : expand_dirs(f.dirs)) runs.push_back(calibrate::read_measured_run(d));
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return a.closed != b.closed ? a.closed : a.level_value < b.level_value;
  });
  calibrate::check_same_workload(runs, f.length_tolerance);
  const calibrate::BaseOrigin origin = origin_of(f.preset);
  sim::SimConfig base = sim::preset_or_file_config(f.preset);
  sim::validate(base);
  calibrate::NelderMeadOptions options;
  options.max_evaluations = f.max_evaluations;
  const calibrate::FitResult fit = calibrate::fit(runs, base, options);
  write_file(f.output, calibrate::preset_yaml(fit, origin));
  const std::string sidecar = residuals_path(f.output);
  write_file(sidecar, calibrate::residuals_json(fit, origin).dump(2) + "\n");
  if (!f.quiet) fmt::print("{}", calibrate::error_table(fit));
  fmt::print(stderr, "servebench: fitted {} on {} runs: {} and {}\n", f.preset, runs.size(),
             f.output, sidecar);
  return 0;
}

}  // namespace

std::function<int()> add_calibrate_command(CLI::App& root) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = root.add_subcommand(
      "calibrate",
      "Fit a simulator preset (efficiencies, overheads, prefill interference) to measured runs "
      "of one server at 3+ load levels; writes a preset file for --sim FILE / sim --config");
  cmd->add_option("runs", flags->dirs,
                  "Run folders (summary.json + requests.jsonl), or a sweep/plan output folder")
      ->required();
  cmd->add_option("--preset", flags->preset,
                  "Base preset or preset file whose parameters are fitted (default tgi)");
  cmd->add_option("-o,--output", flags->output,
                  "The fitted preset file (FIT.yaml; FIT.residuals.json beside it)")
      ->required();
  cmd->add_option("--length-tolerance", flags->length_tolerance,
                  "Largest relative difference of mean/p90 input and output tokens between runs "
                  "(default 0.25)");
  cmd->add_option("--max-evaluations", flags->max_evaluations,
                  "Most candidate presets tried (default 2000)");
  cmd->add_flag("-q,--quiet", flags->quiet, "Print no error table");
  return [flags] { return run_calibrate(*flags); };
}

}  // namespace sb::cli
