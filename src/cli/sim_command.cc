#include "cli/sim_command.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "cli/sim_params.h"
#include "common/fd_limit.h"
#include "sim/catalog.h"
#include "sim/config.h"
#include "sim/cost_model.h"
#include "sim/server.h"
#include "sim/server_limits.h"

namespace sb::cli {
namespace {

struct SimState {
  std::string preset = "tgi";
  CLI::Option* preset_option = nullptr;
  std::string config_file;
  std::map<std::string, std::string> values;  // flag name -> value, filled by CLI11
  std::map<std::string, CLI::Option*> options;
  // The catalog choice (sim/catalog.h); any of them replaces the preset.
  sim::SimChoice choice;
  std::vector<CLI::Option*> choice_options;
  bool list = false;
  // The HTTP layer's protection (sim/server_limits.h); flags only, not --config keys.
  sim::SimServerLimits limits;
  CLI::Option* allow_faults = nullptr;
  CLI::Option* deny_faults = nullptr;
};

// What the command line gave, for resolve_sim_config.
SimFlags given_flags(const SimState& st) {
  SimFlags f;
  if (st.preset_option->count() > 0) f.preset = st.preset;
  for (const CLI::Option* o : st.choice_options)
    if (o->count() > 0) f.choice = st.choice;
  f.config_file = st.config_file;
  for (const auto& [name, option] : st.options)
    if (option->count() > 0) f.values[name] = st.values.at(name);
  return f;
}

int serve(sim::SimConfig c) {
  // Block the stop signals in every thread the server starts; wait for them here.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A shell starts background jobs with SIGINT ignored; an ignored signal never
  // reaches sigwait, so restore the default (the signals stay blocked until sigwait).
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  sim::Server server(c);
  server.start();
  std::fputs((server.url() + "\n").c_str(), stdout);
  std::fflush(stdout);
  fmt::print(stderr,
             "servebench sim: preset {}, batching {}, time scale {}, seed {}; Ctrl-C to stop\n",
             c.server.preset, sim::to_string(c.sched.batching), c.server.time_scale, c.server.seed);
  fmt::print(stderr, "servebench sim: {} on {}x {}, {}, KV cache {} tokens\n", c.model.name,
             c.parallel.tp, c.gpu.name, c.model.dtype, sim::CostModel(c).kv_capacity_tokens());
  const uint64_t fds = fd::descriptor_limit().soft;  // main() raised it to the hard limit
  fmt::print(stderr,
             "servebench sim: up to {} connections (descriptor limit {}), idle timeout {} s, "
             "read timeout {} s, x-sim-fault headers {}\n",
             sim::effective_max_connections(c.limits, fds), fds, c.limits.idle_timeout_s,
             c.limits.read_timeout_s,
             sim::fault_headers_allowed(c.limits, c.server.host) ? "honoured" : "ignored");
  int sig = 0;
  sigwait(&set, &sig);
  server.stop();
  return 0;
}

// --gpu, --model, --engine, --tp, --dtype (a catalog choice) and --list.
void add_catalog_flags(CLI::App& cmd, SimState& st) {
  st.choice_options = {
      cmd.add_option("--gpu", st.choice.gpu,
                     "catalog GPU: A10G, L4, L40S, A100, H100, H200 (replaces --preset)"),
      cmd.add_option("--model", st.choice.model,
                     "catalog model: llama-2-7b, llama-2-13b, llama-2-70b, llama-3.1-8b, "
                     "llama-3.1-70b, qwen2.5-7b"),
      cmd.add_option("--engine", st.choice.engine,
                     "catalog engine behaviour: tgi-1.x, vllm, trtllm, pytorch, fastapi"),
      cmd.add_option("--tp", st.choice.tp, "catalog tensor parallelism: 1, 2, 4 or 8 GPUs"),
      cmd.add_option("--dtype", st.choice.dtype, "catalog precision: fp16, bf16, fp8, int8, int4"),
  };
  cmd.add_flag("--list", st.list,
               "print the catalog (GPUs, models, precisions, engines) and its "
               "sources, and exit");
}

// --idle-timeout-s, --read-timeout-s, --max-connections, --allow-fault-headers /
// --no-fault-headers, --max-fault-delay-ms (sim/server_limits.h).
void add_limit_flags(CLI::App& cmd, SimState& st) {
  sim::SimServerLimits& l = st.limits;
  cmd.add_option("--idle-timeout-s", l.idle_timeout_s,
                 "close a keep-alive connection idle this long (0: never)")
      ->capture_default_str();
  cmd.add_option("--read-timeout-s", l.read_timeout_s,
                 "a request's header and body must arrive within this, else 408 (0: no limit)")
      ->capture_default_str();
  cmd.add_option("--max-connections", l.max_connections,
                 "connections open at once, more get 503 (0: the descriptor limit less 64)")
      ->capture_default_str();
  st.allow_faults = cmd.add_flag("--allow-fault-headers")
                        ->description(
                            "honour x-sim-fault request headers on any address (default: only on a "
                            "loopback bind)");
  st.deny_faults = cmd.add_flag("--no-fault-headers")
                       ->description("ignore x-sim-fault headers, even on loopback")
                       ->excludes(st.allow_faults);
  cmd.add_option("--max-fault-delay-ms", l.max_fault_delay_ms,
                 "longest stall_ms / slow_first_byte_ms a header may ask for (more: 400/422), "
                 "and how long never_respond holds a connection")
      ->capture_default_str();
}

// The limits the flags gave.
sim::SimServerLimits given_limits(const SimState& st) {
  sim::SimServerLimits l = st.limits;
  if (st.allow_faults->count() > 0) l.fault_headers = sim::FaultHeaders::allow;
  if (st.deny_faults->count() > 0) l.fault_headers = sim::FaultHeaders::deny;
  sim::validate(l);
  return l;
}

}  // namespace

std::function<int()> add_sim_command(CLI::App& root) {
  auto st = std::make_shared<SimState>();
  CLI::App* cmd = root.add_subcommand(
      "sim", "run the simulated inference server (TGI + OpenAI APIs, /metrics) until SIGINT");
  st->preset_option =
      cmd->add_option("--preset", st->preset,
                      "pytorch | fastapi | tgi | instant (beats the --config file's preset:)")
          ->capture_default_str();
  cmd->add_option("--config", st->config_file,
                  "YAML file of parameter overrides (keys = flag names); precedence: preset < "
                  "file < flags");
  add_catalog_flags(*cmd, *st);
  add_limit_flags(*cmd, *st);
  for (const SimParam& p : sim_params())
    st->options[p.name] = cmd->add_option(std::string("--") + p.name, st->values[p.name], p.help);
  return [st]() -> int {
    if (st->list) {
      std::fputs(sim::catalog_listing().c_str(), stdout);
      return 0;
    }
    SimFlags flags = given_flags(*st);
    // Unless set: enough network threads that the simulator is not the bottleneck, leaving
    // half the cores to the client on the same host.
    flags.default_threads =
        static_cast<int>(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u));
    sim::SimConfig c = resolve_sim_config(flags);
    c.limits = given_limits(*st);
    c.server.trace_in_memory = false;
    sim::validate(c);
    return serve(std::move(c));
  };
}

}  // namespace sb::cli
