#include "cli/compare_command.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "report/compare_stats.h"
#include "report/run_folder.h"
#include "results/run_outputs.h"

namespace sb::cli {
namespace {

struct CompareFlags {
  std::string baseline, candidate;
  std::string format = "text";
  std::string output;
  std::vector<std::string> gates;
  report::CompareOptions options;
};

int run_compare(const CompareFlags& f) {
  if (f.format != "text" && f.format != "json" && f.format != "html")
    throw usage_error(fmt::format("--format '{}': use text, json or html", f.format));
  std::vector<report::RegressionGate> gates;
  for (const auto& g : f.gates) gates.push_back(report::parse_regression_gate(g));
  const report::RunData base = report::load_run_folder(f.baseline);
  const report::RunData cand = report::load_run_folder(f.candidate);
  for (const report::RunData* r : {&base, &cand}) {
    for (const auto& w : r->warnings) fmt::print(stderr, "servebench: warning: {}\n", w);
    if (!r->has_requests)
      throw Error(
          fmt::format("{}/requests.jsonl: missing; compare resamples the requests", r->dir));
  }
  const auto changes = report::compare_runs(base, cand, f.options);
  std::string text;
  if (f.format == "json")
    text = report::compare_to_json(changes, base, cand, f.options).dump(2) + "\n";
  else if (f.format == "html")
    text = report::compare_to_html(changes, base, cand, f.options);
  else
    text = report::compare_to_text(changes, base, cand, f.options);
  if (f.output.empty() || f.output == "-")
    std::fwrite(text.data(), 1, text.size(), stdout);
  else
    results::write_file_atomically(f.output, text);

  const auto failed = report::failed_gates(changes, gates);
  for (const auto& m : failed) fmt::print(stderr, "servebench: regression: {}\n", m);
  return failed.empty() ? 0 : kRegressionExitCode;
}

}  // namespace

std::function<int()> add_compare_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "compare", "Compare a candidate run with a baseline run (bootstrap confidence intervals)");
  auto f = std::make_shared<CompareFlags>();
  app->add_option("baseline", f->baseline, "Baseline run folder")->required();
  app->add_option("candidate", f->candidate, "Candidate run folder")->required();
  app->add_option("--format", f->format, "text (default), json or html");
  app->add_option("-o,--output", f->output, "Write the result to this file (default stdout)");
  app->add_option("--fail-on-regression", f->gates,
                  "METRIC:PCT, repeatable: exit 5 when METRIC (e2e_p99, ttft, throughput, ...) "
                  "regresses significantly by more than PCT percent");
  app->add_option("--resamples", f->options.resamples, "Bootstrap resamples (default 1000)");
  app->add_option("--confidence", f->options.confidence,
                  "Confidence level of the intervals (default 0.95)");
  app->add_option("--seed", f->options.seed, "Bootstrap seed (default 1)");
  app->add_option("--min-effect", f->options.min_effect_pct,
                  "Smallest change in percent called significant (default 5)");
  return [f] { return run_compare(*f); };
}

}  // namespace sb::cli
