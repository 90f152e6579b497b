#include "cli/sim_command.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "sim/config.h"
#include "sim/server.h"

namespace sb::cli {
namespace {

using sim::SimConfig;

double to_double(const std::string& field, const std::string& v) {
  size_t pos = 0;
  double d = 0;
  try {
    d = std::stod(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != v.size())
    throw usage_error(fmt::format("sim: {} '{}' is not a number", field, v));
  return d;
}

int64_t to_int(const std::string& field, const std::string& v) {
  double d = to_double(field, v);
  if (d != static_cast<double>(static_cast<int64_t>(d)))
    throw usage_error(fmt::format("sim: {} '{}' must be an integer", field, v));
  return static_cast<int64_t>(d);
}

bool to_bool(const std::string& field, const std::string& v) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw usage_error(fmt::format("sim: {} '{}' must be true or false", field, v));
}

// One overridable parameter: flag name (also the YAML key, '-' or '_'), help, setter.
struct Param {
  const char* name;
  const char* help;
  void (*set)(SimConfig&, const std::string& field, const std::string& value);
};

#define SB_NUM(field_, type_)                                    \
  [](SimConfig& c, const std::string& f, const std::string& v) { \
    c.field_ = static_cast<type_>(to_double(f, v));              \
  }
#define SB_INT(field_, type_)                                    \
  [](SimConfig& c, const std::string& f, const std::string& v) { \
    c.field_ = static_cast<type_>(to_int(f, v));                 \
  }

const Param kParams[] = {
    {"host", "address to listen on",
     [](SimConfig& c, const std::string&, const std::string& v) { c.host = v; }},
    {"port", "port to listen on (0: ephemeral)", SB_INT(port, uint16_t)},
    {"threads", "network threads (default: half the cores, 1..8)", SB_INT(threads, int)},
    {"time-scale", "multiply every simulated duration (0.1: 10x faster)",
     SB_NUM(time_scale, double)},
    {"seed", "seed of output text and fault rates", SB_INT(seed, uint64_t)},
    {"trace", "write a JSONL ground-truth line per request to FILE",
     [](SimConfig& c, const std::string&, const std::string& v) { c.trace_path = v; }},
    {"max-body-bytes", "largest accepted request body (413 beyond)",
     SB_INT(max_body_bytes, uint64_t)},
    {"model-name", "model id reported by the APIs",
     [](SimConfig& c, const std::string&, const std::string& v) { c.model_name = v; }},
    {"model-params", "model parameter count", SB_NUM(model_params, double)},
    {"bytes-per-param", "bytes per weight (2: FP16, 0.5: 4-bit)", SB_NUM(bytes_per_param, double)},
    {"num-layers", "transformer layers", SB_INT(num_layers, int)},
    {"kv-dim", "hidden size x KV heads / heads", SB_INT(kv_dim, int)},
    {"gpu-memory-bytes", "GPU memory", SB_NUM(gpu_memory_bytes, double)},
    {"gpu-bandwidth", "GPU memory bandwidth, bytes/s", SB_NUM(gpu_bandwidth_bytes_per_s, double)},
    {"gpu-flops", "GPU peak FLOP/s", SB_NUM(gpu_flops, double)},
    {"bandwidth-efficiency", "fraction of peak bandwidth a decode step reaches",
     SB_NUM(bandwidth_efficiency, double)},
    {"mfu", "fraction of peak FLOP/s prefill reaches", SB_NUM(mfu, double)},
    {"memory-reserve-bytes", "GPU memory not available for KV",
     SB_NUM(memory_reserve_bytes, double)},
    {"decode-step-ms", "weight-read time of a decode step (0: derived)",
     SB_NUM(decode_step_ms, double)},
    {"prefill-ms-per-token", "prefill time per prompt token (0: derived)",
     SB_NUM(prefill_ms_per_token, double)},
    {"step-overhead-ms", "fixed cost of every decode step", SB_NUM(step_overhead_ms, double)},
    {"prefill-overhead-ms", "fixed cost of every prefill", SB_NUM(prefill_overhead_ms, double)},
    {"kv-capacity-tokens", "KV-cache capacity in tokens (0: derived from memory)",
     SB_INT(kv_capacity_tokens, int64_t)},
    {"batching", "none | static | continuous",
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.batching = sim::batch_policy_from_string(v);
     }},
    {"max-batch-size", "largest running batch", SB_INT(max_batch_size, int)},
    {"batch-window-ms", "static batching: longest wait for a full batch",
     SB_NUM(batch_window_ms, double)},
    {"kv-full", "queue | reject: a request whose KV does not fit now",
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.kv_full = sim::kv_full_action_from_string(v);
     }},
    {"queue-limit", "most requests waiting (0: unlimited); beyond: 429 / overloaded",
     SB_INT(queue_limit, int)},
    {"overhead-ms", "per-request HTTP/framework overhead", SB_NUM(overhead_ms, double)},
    {"serial-lock", "true: overhead and engine share one lock (single Python worker)",
     [](SimConfig& c, const std::string& f, const std::string& v) {
       c.serial_lock = to_bool(f, v);
     }},
    {"max-input-tokens", "longest prompt (422 / 400 beyond)", SB_INT(max_input_tokens, int)},
    {"max-total-tokens", "longest prompt + output", SB_INT(max_total_tokens, int)},
    {"chars-per-token", "prompt tokens = ceil(bytes / this)", SB_INT(chars_per_token, int)},
    {"eos-probability", "per-token chance of stopping early unless ignore_eos",
     SB_NUM(eos_probability, double)},
    {"fault-rate", "global fault rates, e.g. 503=0.01,reset=0.001",
     [](SimConfig& c, const std::string&, const std::string& v) {
       c.fault_rates = sim::parse_fault_rates(v);
     }},
};

#undef SB_NUM
#undef SB_INT

const Param* find_param(std::string key) {
  for (auto& ch : key)
    if (ch == '_') ch = '-';
  for (const Param& p : kParams)
    if (key == p.name) return &p;
  return nullptr;
}

void apply_yaml(SimConfig& c, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw usage_error(fmt::format("sim: --config {}: {}", path, e.what()));
  }
  if (!root.IsMap())
    throw usage_error(fmt::format("sim: --config {}: expected a mapping of parameters", path));
  for (const auto& kv : root) {
    std::string key = kv.first.as<std::string>();
    if (key == "preset") continue;
    const Param* p = find_param(key);
    if (!p)
      throw usage_error(
          fmt::format("sim: --config {}: unknown key '{}' (see servebench sim --help)", path, key));
    if (!kv.second.IsScalar())
      throw usage_error(fmt::format("sim: --config {}: '{}' must be a scalar", path, key));
    p->set(c, key, kv.second.as<std::string>());
  }
}

struct SimState {
  std::string preset = "tgi";
  std::string config_file;
  std::map<std::string, std::string> values;  // flag name -> value, filled by CLI11
  std::map<std::string, CLI::Option*> options;
};

}  // namespace

std::function<int()> add_sim_command(CLI::App& root) {
  auto st = std::make_shared<SimState>();
  CLI::App* cmd = root.add_subcommand(
      "sim", "run the simulated inference server (TGI + OpenAI APIs, /metrics) until SIGINT");
  cmd->add_option("--preset", st->preset, "pytorch | fastapi | tgi | instant")
      ->capture_default_str();
  cmd->add_option("--config", st->config_file,
                  "YAML file of parameter overrides (keys = flag names)");
  for (const Param& p : kParams) {
    st->options[p.name] = cmd->add_option(std::string("--") + p.name, st->values[p.name], p.help);
  }
  return [st]() -> int {
    SimConfig c;
    std::string preset = st->preset;
    if (!st->config_file.empty()) {
      try {
        YAML::Node root = YAML::LoadFile(st->config_file);
        if (root.IsMap() && root["preset"] && st->options.count("preset") == 0)
          preset = root["preset"].as<std::string>();
      } catch (const YAML::Exception&) {
      }
    }
    c = sim::preset_config(preset);
    if (!st->config_file.empty()) apply_yaml(c, st->config_file);
    for (const Param& p : kParams) {
      CLI::Option* o = st->options.at(p.name);
      if (o->count() > 0) p.set(c, p.name, st->values.at(p.name));
    }
    if (st->options.at("threads")->count() == 0) {
      // Not given: enough network threads that the simulator is not the bottleneck,
      // leaving half the cores to the client on the same host.
      unsigned hw = std::thread::hardware_concurrency();
      c.threads = static_cast<int>(std::clamp(hw / 2, 1u, 8u));
    }
    c.trace_in_memory = false;
    sim::validate(c);

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
    fmt::print(stderr, "servebench sim: preset {}, batching {}, time scale {}; Ctrl-C to stop\n",
               c.preset, sim::to_string(c.batching), c.time_scale);
    int sig = 0;
    sigwait(&set, &sig);
    server.stop();
    return 0;
  };
}

}  // namespace sb::cli
