#include "cli/agree_command.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "common/error.h"
#include "quality/agreement.h"
#include "report/run_folder.h"
#include "results/run_outputs.h"

namespace sb::cli {
namespace {

struct AgreeFlags {
  std::string run_a, run_b;
  std::string format = "text";
  std::string output;
  std::string tokenize = "auto";
  std::vector<std::string> gates;
  size_t top = 5;
};

// The run's measured requests with their texts; refuses a run without saved outputs.
std::vector<quality::RunOutput> outputs_of(const report::RunData& run, const char* which) {
  if (!run.has_requests)
    throw usage_error(fmt::format("{} ({}): requests.jsonl is missing; agree pairs its requests",
                                  which, run.dir));
  if (!report::saved_outputs(run))
    throw usage_error(fmt::format(
        "{} ({}) was made without --save-outputs: its requests.jsonl holds no response texts; "
        "run `servebench prof ... --save-outputs` for both runs",
        which, run.dir));
  return run.samples.output_views();
}

int run_agree(const AgreeFlags& f) {
  if (f.format != "text" && f.format != "json")
    throw usage_error(fmt::format("--format '{}': use text or json", f.format));
  const auto mode = quality::tokenize_from_string(f.tokenize);
  if (!mode)
    throw usage_error(
        fmt::format("--quality-tokenize '{}': use auto, 13a, zh or char", f.tokenize));
  std::vector<quality::AgreementGate> gates;
  for (const auto& g : f.gates) gates.push_back(quality::parse_agreement_gate(g));

  const report::RunData a = report::load_run_folder(f.run_a);
  const report::RunData b = report::load_run_folder(f.run_b);
  for (const report::RunData* r : {&a, &b})
    for (const auto& w : r->warnings) fmt::print(stderr, "servebench: warning: {}\n", w);
  const auto diffs = quality::fingerprint_differences(a.summary, b.summary);
  if (!diffs.empty()) {
    std::string list;
    for (const auto& d : diffs) list += "\n  " + d;
    throw usage_error(fmt::format(
        "{} and {} were not made with the same prompts (same --seed and dataset/workload "
        "needed to pair requests):{}",
        a.dir, b.dir, list));
  }
  const auto outputs_a = outputs_of(a, "RUN_A");
  const auto outputs_b = outputs_of(b, "RUN_B");
  const quality::Agreement agreement =
      quality::compute_agreement(outputs_a, outputs_b, *mode, f.top);
  if (agreement.pairs == 0)
    throw Error(
        fmt::format("{} and {} have no request id that succeeded in both: nothing to "
                    "compare",
                    a.dir, b.dir));

  std::string text;
  if (f.format == "json") {
    nlohmann::json j = quality::agreement_to_json(agreement);
    j["run_a"] = {{"dir", a.dir}, {"backend", a.backend}};
    j["run_b"] = {{"dir", b.dir}, {"backend", b.backend}};
    j["tokenize"] = f.tokenize;
    text = j.dump(2) + "\n";
  } else {
    text = fmt::format("agree: A = {} ({}), B = {} ({})\n", a.dir, a.backend, b.dir, b.backend) +
           quality::agreement_to_text(agreement);
  }
  if (f.output.empty() || f.output == "-")
    std::fwrite(text.data(), 1, text.size(), stdout);
  else
    results::write_file_atomically(f.output, text);

  const auto failed = quality::failed_gates(agreement, gates);
  for (const auto& m : failed)
    fmt::print(stderr, "servebench: agreement below --fail-below: {}\n", m);
  return failed.empty() ? 0 : kAgreementExitCode;
}

}  // namespace

std::function<int()> add_agree_command(CLI::App& root) {
  auto* app = root.add_subcommand(
      "agree", "Output agreement of two runs of the same prompts (B's outputs against A's)");
  auto f = std::make_shared<AgreeFlags>();
  app->add_option("run_a", f->run_a, "Run folder A (the reference outputs)")->required();
  app->add_option("run_b", f->run_b, "Run folder B")->required();
  app->add_option("--format", f->format, "text (default) or json");
  app->add_option("-o,--output", f->output, "Write the result to this file (default stdout)");
  app->add_option("--fail-below", f->gates,
                  "METRIC:VALUE, repeatable: exit 6 when METRIC (identical, exact_match, "
                  "rouge_l: 0..1; bleu, chrf: 0..100) is below VALUE");
  app->add_option("--quality-tokenize", f->tokenize, "auto (default), 13a, zh or char");
  app->add_option("--top", f->top, "Most divergent pairs to list (default 5)");
  return [f] { return run_agree(*f); };
}

}  // namespace sb::cli
