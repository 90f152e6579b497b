#include "mpi/executor.h"

#include <atomic>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/redact.h"
#include "mpi/comm.h"
#include "mpi/distributed_run.h"
#include "plan/execute_run.h"
#include "plan/run_executor.h"

namespace sb::mpi {
namespace {

using json = nlohmann::json;

// A failure every rank agreed on at a step's start (enter): every rank leaves the command
// with it. Not an sb::Error, so that no catch inside plan_runner takes it for a run's failure.
class AgreedError : public std::runtime_error {
 public:
  AgreedError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::optional<double> opt_from(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// What every rank needs of a run's outcome to take the same decisions as rank 0.
json outcome_to_json(const plan::RunOutcome& o) {
  const plan::Headline& h = o.headline;
  return {{"ok", o.ok},
          {"exit_code", o.exit_code},
          {"error", redact_text(o.error)},
          {"interrupted", o.interrupted},
          {"slo_met", o.slo_met},
          {"requests", h.requests},
          {"ok_requests", h.ok},
          {"failed", h.failed},
          {"ttft_p50_ms", opt(h.ttft_p50_ms)},
          {"ttft_p99_ms", opt(h.ttft_p99_ms)},
          {"e2e_p50_ms", opt(h.e2e_p50_ms)},
          {"e2e_p99_ms", opt(h.e2e_p99_ms)},
          {"tpot_p99_ms", opt(h.tpot_p99_ms)},
          {"qps", opt(h.qps)},
          {"output_tokens_per_s", opt(h.output_tokens_per_s)},
          {"goodput_fraction", opt(h.goodput_fraction)},
          {"error_rate", h.error_rate}};
}

plan::RunOutcome outcome_from_json(const json& j) {
  plan::RunOutcome o;
  o.ok = j.at("ok").get<bool>();
  o.exit_code = j.at("exit_code").get<int>();
  o.error = j.at("error").get<std::string>();
  o.interrupted = j.at("interrupted").get<bool>();
  o.slo_met = j.at("slo_met").get<bool>();
  plan::Headline& h = o.headline;
  h.requests = j.at("requests").get<int64_t>();
  h.ok = j.at("ok_requests").get<int64_t>();
  h.failed = j.at("failed").get<int64_t>();
  h.ttft_p50_ms = opt_from(j, "ttft_p50_ms");
  h.ttft_p99_ms = opt_from(j, "ttft_p99_ms");
  h.e2e_p50_ms = opt_from(j, "e2e_p50_ms");
  h.e2e_p99_ms = opt_from(j, "e2e_p99_ms");
  h.tpot_p99_ms = opt_from(j, "tpot_p99_ms");
  h.qps = opt_from(j, "qps");
  h.output_tokens_per_s = opt_from(j, "output_tokens_per_s");
  h.goodput_fraction = opt_from(j, "goodput_fraction");
  h.error_rate = j.at("error_rate").get<double>();
  return o;
}

plan::RunOutcome failed(int code, std::string error) {
  plan::RunOutcome o;
  o.exit_code = code != 0 ? code : static_cast<int>(ExitCode::failure);
  o.error = std::move(error);
  return o;
}

[[noreturn]] void abort_job(Session& mpi, int code, const std::string& message) {
  if (!message.empty())
    fmt::print(stderr, "servebench: rank {}: {}\n", mpi.rank(), redact_text(message));
  std::fflush(stdout);
  std::fflush(stderr);
  mpi.abort(code);
}

// The executor of every rank (executor.h). All its calls are collective.
class MpiExecutor final : public plan::RunExecutor {
 public:
  MpiExecutor(int* argc, char*** argv)
      : mpi_(argc, argv), me_(identify(mpi_)), fault_(fault_from_env()) {}

  bool leader() const override { return me_.rank == 0; }

  const std::atomic<bool>* plan_stop(const std::atomic<bool>* signal) override {
    signal_ = signal;
    return &agreed_stop_;
  }

  std::string on_leader(const std::function<std::string()>& f) override {
    enter("leader step");
    json r;
    {
      const InCall in(*this);
      if (leader()) {
        try {
          r = {{"ok", true}, {"value", f()}};
        } catch (const Error& e) {
          r = {{"ok", false}, {"code", static_cast<int>(e.code())}, {"error", redact_text(e.what())}};
        } catch (const std::exception& e) {
          r = {{"ok", false},
               {"code", static_cast<int>(ExitCode::failure)},
               {"error", redact_text(fmt::format("internal error: {}", e.what()))}};
        }
      }
      r = json::parse(bcast_string(r.dump(), 0, MPI_COMM_WORLD));
    }
    // The leader's failure, thrown alike on every rank (not inside the call: agreed).
    if (!r["ok"].get<bool>())
      throw Error(r["error"].get<std::string>(), static_cast<ExitCode>(r["code"].get<int>()));
    return r["value"].get<std::string>();
  }

  // The plan's stop flag (the agreed one) is not passed on: the engines watch this process's
  // signal flag, so a signal stops a run at once.
  plan::RunOutcome execute(const plan::RunSpec& spec, const std::atomic<bool>* /*stop*/) override {
    enter("run " + spec.dir);
    const InCall in(*this);

    // Rank 0's simulators, then every rank's configuration, checked against rank 0's.
    std::optional<plan::RunSimulators> sims;
    int code = 0;
    std::string message;
    if (leader()) {
      try {
        sims.emplace(spec);
      } catch (const Error& e) {
        code = static_cast<int>(e.code());
        message = e.what();
      }
    }
    const json urls = json::parse(bcast_string(
        json(sims ? sims->urls() : std::vector<std::string>{}).dump(), 0, MPI_COMM_WORLD));
    const int sims_failed = bcast_int(code);
    engine::EngineConfig e;
    uint64_t hash = 0;
    if (!sims_failed) {
      try {
        e = plan::resolve_engine(spec, urls.get<std::vector<std::string>>());
        hash = config_hash(e, {{"slo",
                                {spec.slo.ttft_ms.value_or(-1), spec.slo.tpot_ms.value_or(-1),
                                 spec.slo.e2e_ms.value_or(-1)}},
                               {"dir", spec.dir},
                               {"max_error_rate", spec.max_error_rate},
                               {"api_key_set", !e.api_key.empty()}});
      } catch (const Error& err) {
        code = static_cast<int>(err.code());
        message = err.what();
      }
    }
    uint64_t hash0 = hash;
    MPI_Bcast(&hash0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (code == 0 && hash != hash0) {
      code = static_cast<int>(ExitCode::usage);
      message =
          "its configuration of this run differs from rank 0's (different providers, prompt "
          "files or datasets, environment or servebench version on that host?); no request "
          "was sent";
    }
    const Agreement a = agree(code, message, me_, false);
    if (a.code != 0) return conclude(failed(a.code, a.message), false, false);

    // The run, over as many ranks as its load can keep busy; the leader samples its
    // telemetry exactly as one process does (plan::open_telemetry).
    std::unique_ptr<plan::RunTelemetry> telemetry;
    if (leader()) telemetry = plan::open_telemetry(spec, e, *sims);
    SplitRun split;
    split.engine = e;
    split.dir = spec.dir;
    split.participants = participants_for(e.load, me_.size);
    split.stop = signal_;
    split.show_progress = spec.print_progress;
    split.print_refusals = false;
    split.run_info = [&](const engine::RunResult& r) { return plan::run_info(spec, e, r); };
    if (telemetry) {
      split.leader_hooks = [&](engine::RunHooks& hooks) { telemetry->attach(hooks); };
      split.leader_telemetry = [&] { return telemetry->finish(spec.dir); };
    }
    SplitRunResult res = run_split(split, me_, fault_);
    telemetry.reset();       // stopped (and written, when the run took place)
    if (sims) sims->stop();  // only now: every rank's load used them until here

    plan::RunOutcome out;
    if (leader()) {
      if (res.refused != 0) {
        out = failed(res.refused, res.error);
      } else {
        out = plan::outcome_of(std::move(*res.summary), res.interrupted, spec);
        mark_incomplete(res.ranks, out);
      }
    }
    if (!res.dead.empty()) {
      // MPI cannot go on with a dead peer: no further collective; the plan ends here and
      // the job is aborted once rank 0 wrote the index (run_distributed_plan).
      broken_ = true;
      agreed_stop_ = true;
      return out;
    }
    return conclude(out, true, res.stop_requested);
  }

  // Runs the command on this rank (executor.h, contract 5): a rank's death or a failure
  // that left the ranks out of step ends the job with MPI_Abort; a failure of the command
  // on any rank ends it on every rank with the first one's exit code.
  int run_command(const std::function<int()>& command) override {
    int rc = 0;
    bool failed_whole = false;  // the command failed as such (not a run of it)
    try {
      try {
        rc = command();
        if (broken_)
          abort_job(mpi_, static_cast<int>(ExitCode::failure),
                    "a rank died: the run it was in is marked incomplete, the command ends there");
        if (const int failure = finish(0, "")) {
          rc = failure;
          failed_whole = true;
        }
      } catch (const AgreedError& e) {
        rc = e.code();  // rank 0 printed it
        failed_whole = true;
      } catch (const Error& e) {
        if (in_call_) throw;
        rc = finish(static_cast<int>(e.code()), e.what());
        failed_whole = true;
      }
    } catch (const Error& e) {
      abort_job(mpi_, static_cast<int>(e.code()), e.what());
    } catch (const std::exception& e) {
      abort_job(mpi_, static_cast<int>(ExitCode::failure),
                fmt::format("internal error: {}", e.what()));
    }
    return leader() || failed_whole ? rc : 0;
  }

 private:
  // Marks a call's collectives: an exception that leaves them leaves the ranks out of step
  // (the flag stays set, and run_distributed_plan ends the job).
  struct InCall {
    explicit InCall(MpiExecutor& e) : e_(e), unwinding_(std::uncaught_exceptions()) {
      e_.in_call_ = true;
    }
    ~InCall() {
      if (std::uncaught_exceptions() == unwinding_) e_.in_call_ = false;
    }
    MpiExecutor& e_;
    int unwinding_;
  };

  int bcast_int(int v) const {
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v;
  }

  // Every rank reports where it is (`step`), whether it failed since the last call and
  // whether it was asked to stop; rank 0 decides and tells everyone. Updates the agreed stop.
  json enter_verdict(const std::string& step, int code, const std::string& message) {
    const json mine = {{"step", step},
                       {"code", code},
                       {"message", redact_text(message)},
                       {"name", me_.name()},
                       {"stop", signal_ && signal_->load()}};
    const auto all = gather_strings(mine.dump(), 0, MPI_COMM_WORLD);
    json verdict = {{"ok", true}, {"stop", false}};
    if (leader()) {
      std::string rank0_message;
      for (size_t r = 0; r < all.size(); ++r) {
        const json j = json::parse(all[r]);
        if (j["stop"].get<bool>()) verdict["stop"] = true;
        const int c = j["code"].get<int>();
        if (c == 0) continue;
        const std::string msg = j["message"].get<std::string>();
        const std::string named =
            r == 0 ? msg : fmt::format("rank {}: {}", j["name"].get<std::string>(), msg);
        if (verdict["ok"].get<bool>()) verdict = {{"ok", false}, {"code", c}, {"error", named}};
        if (r == 0) rank0_message = msg;
        if (r == 0 || msg != rank0_message) fmt::print(stderr, "servebench: {}\n", named);
      }
      for (size_t r = 1; r < all.size() && verdict["ok"].get<bool>(); ++r) {
        const json j = json::parse(all[r]);
        if (j["step"] != step) {
          verdict = {{"ok", false},
                     {"code", static_cast<int>(ExitCode::failure)},
                     {"error", fmt::format("rank {} is at '{}' while rank 0 is at '{}': the "
                                           "ranks went out of step (a bug); stopping",
                                           j["name"].get<std::string>(),
                                           j["step"].get<std::string>(), step)}};
          fmt::print(stderr, "servebench: {}\n", verdict["error"].get<std::string>());
        }
      }
    }
    verdict = json::parse(bcast_string(verdict.dump(), 0, MPI_COMM_WORLD));
    if (verdict.value("stop", false)) agreed_stop_ = true;
    return verdict;
  }

  void enter(const std::string& step) {
    const json v = enter_verdict(step, 0, "");
    if (!v["ok"].get<bool>())
      throw AgreedError(v["code"].get<int>(), v["error"].get<std::string>());
  }

  // Rank 0: a run some participant missed is incomplete: failed, naming them (exit code 3
  // when one could not reach the target, as `prof`).
  static void mark_incomplete(const std::vector<RankResult>& ranks, plan::RunOutcome& out) {
    std::string missing;
    bool unreachable = false;
    for (const auto& r : ranks)
      if (r.state != "done") {
        unreachable = unreachable || r.state == "failed";
        missing += fmt::format("{}rank {} {}: {}", missing.empty() ? "" : "; ", r.name(), r.state,
                               r.error);
      }
    if (missing.empty() || out.interrupted) return;
    out.ok = false;
    out.exit_code = static_cast<int>(unreachable ? ExitCode::unreachable : ExitCode::failure);
    out.error = "incomplete (run marked so): " + missing;
  }

  // Every rank leaves a run with rank 0's outcome (`send`) or the one all computed alike,
  // and with the stop flag agreed.
  plan::RunOutcome conclude(plan::RunOutcome out, bool send, bool stop_requested) {
    int stop = stop_requested || (signal_ && signal_->load()) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (stop) agreed_stop_ = true;
    if (!send) return out;
    const json j = json::parse(
        bcast_string(leader() ? outcome_to_json(out).dump() : std::string(), 0, MPI_COMM_WORLD));
    if (leader()) return out;  // keeps its summary
    return outcome_from_json(j);
  }

  // The end of the command on this rank: `code` 0, or the error it fails with. Returns the
  // exit code of a command that failed on some rank (0 when none did).
  int finish(int code, const std::string& message) {
    const json v = enter_verdict("end", code, message);
    return v["ok"].get<bool>() ? 0 : v["code"].get<int>();
  }

  Session mpi_;
  RankIdentity me_;
  Fault fault_;
  const std::atomic<bool>* signal_ = nullptr;
  std::atomic<bool> agreed_stop_{false};
  bool broken_ = false;
  bool in_call_ = false;
};

}  // namespace

std::unique_ptr<plan::RunExecutor> make_executor(int* argc, char*** argv) {
  return std::make_unique<MpiExecutor>(argc, argv);
}

}  // namespace sb::mpi
