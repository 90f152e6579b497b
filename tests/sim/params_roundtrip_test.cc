// Every parameter of sim/params.h by its flag name and by its preset-file key: the same value
// gives the same SimConfig, and an out-of-range value is refused with the same message, by
// sim::validate after set_param and by preset_or_file_config (which validates the file's
// config) alike, the message naming the flag.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"
#include "sim/config.h"
#include "sim/params.h"
#include "sim/preset_file.h"

namespace sb::sim {
namespace {

namespace fs = std::filesystem;

// How a bad value is refused: by validate (the message names the flag) or already by the
// parser of set_param (the message names the field it is given).
enum class Refused { none, by_validate, by_parser };

struct Case {
  std::string good;  // differs from the base preset's value
  std::string bad;   // out of range or malformed (empty with Refused::none)
  Refused refused = Refused::none;
  std::string flag = "";  // the flag the message names, when not the parameter's own
};

// One row per parameter of param_docs() (the test fails on a missing or an extra row). The
// base is the instant preset (fused prefill, reserved KV, continuous batching).
const std::map<std::string, Case>& cases() {
  constexpr auto V = Refused::by_validate;
  constexpr auto P = Refused::by_parser;
  static const std::map<std::string, Case> kCases = {
      {"host", {"0.0.0.0", "", Refused::none}},
      {"port", {"8080", "70000", P}},
      {"threads", {"4", "0", V}},
      {"time-scale", {"0.5", "0", V}},
      {"seed", {"18446744073709551615", "-1", P}},
      {"trace", {"/tmp/t.jsonl", "", Refused::none}},
      {"max-body-bytes", {"4096", "8", V}},
      {"model-name", {"m", "", Refused::none}},
      {"model-params", {"7e9", "0", V}},
      {"embedding-params", {"1e8", "-1", V}},
      {"bytes-per-param", {"1", "0", V}},
      {"num-layers", {"40", "0", V}},
      {"kv-dim", {"1024", "0", V}},
      {"gpu-memory-bytes", {"8e10", "0", V}},
      {"gpu-bandwidth", {"3.35e12", "0", V}},
      {"gpu-flops", {"989e12", "-1", V}},
      {"bandwidth-efficiency", {"0.7", "1.5", V}},
      {"mfu", {"0.6", "0", V}},
      {"memory-reserve-bytes", {"1e9", "-1", V}},
      {"decode-step-ms", {"2", "-1", V}},
      {"prefill-ms-per-token", {"0.01", "-0.5", V}},
      {"step-overhead-ms", {"1.5", "-1", V}},
      {"prefill-overhead-ms", {"3", "-1", V}},
      {"kv-capacity-tokens", {"50000", "-1", V}},
      {"batching", {"static", "sometimes", P}},
      {"max-batch-size", {"64", "0", V}},
      {"batch-window-ms", {"10", "-1", V}},
      {"kv-full", {"reject", "maybe", P}},
      {"queue-limit", {"10", "-1", V}},
      {"overhead-ms", {"2", "-1", V}},
      {"serial-lock", {"true", "perhaps", P}},
      {"max-input-tokens", {"2000", "0", V}},
      {"max-total-tokens", {"300000", "100", V}},
      {"prefill-mode", {"chunked", "interleaved", P}},
      {"kv-allocation", {"paged", "pooled", P}},
      {"kv-block-tokens", {"32", "0", V}},
      {"waiting-served-ratio", {"2", "-1", V}},
      {"max-waiting-tokens", {"10", "0", V}},
      {"max-batch-prefill-tokens", {"8192", "-1", V}},
      {"max-batch-total-tokens", {"100000", "-1", V}},
      {"max-num-batched-tokens", {"4096", "0", V}},
      {"max-num-seqs", {"128", "0", V, "max-batch-size"}},
      {"prefix-caching", {"true", "x", P}},
      {"prefix-cache-tokens", {"1000", "-1", V}},
      {"chars-per-token", {"3", "0", V}},
      {"eos-probability", {"0.01", "1", V}},
      {"reasoning-length", {"64", "-1", V}},
      {"image-tokens", {"576", "0", V}},
      {"fault-rate", {"503=0.01", "503=2", P}},
      {"hidden-size", {"5120", "0", V}},
      {"head-dim", {"64", "0", V}},
      {"kv-bytes-per-elem", {"1", "0", V}},
      {"dequant-overhead", {"0.1", "-0.1", V}},
      {"tensor-parallel", {"2", "65", V}},
      {"interconnect-bandwidth", {"450e9", "0", V}},
      {"allreduce-latency-us", {"20", "-1", V}},
  };
  return kCases;
}

// Every part compared (SimServerLimits field by field: it has no operator==).
bool same(const SimConfig& a, const SimConfig& b) {
  const auto& la = a.limits;
  const auto& lb = b.limits;
  return a.server == b.server && a.model == b.model && a.gpu == b.gpu && a.parallel == b.parallel &&
         a.cost == b.cost && a.sched == b.sched && a.text == b.text && a.faults == b.faults &&
         la.idle_timeout_s == lb.idle_timeout_s && la.read_timeout_s == lb.read_timeout_s &&
         la.max_connections == lb.max_connections && la.fault_headers == lb.fault_headers &&
         la.max_fault_delay_ms == lb.max_fault_delay_ms;
}

// The file-style key of flag `name`: '-' written as '_'.
std::string file_key(std::string name) {
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

// The usage error `f` throws, or "(no error)".
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "(no error)";
}

// A preset file of `instant` and one value, removed at the end of the test.
class PresetYaml {
 public:
  PresetYaml(const std::string& key, const std::string& value)
      : path_(fs::temp_directory_path() /
              ("servebench-params-" + std::to_string(getpid()) + "-" + key + ".yaml")) {
    std::ofstream(path_) << "preset: instant\n" << key << ": '" << value << "'\n";
  }
  ~PresetYaml() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(SimParams, TheTableCoversEveryParameter) {
  for (const ParamDoc& d : param_docs()) EXPECT_TRUE(cases().count(d.name)) << d.name;
  for (const auto& [name, c] : cases()) EXPECT_EQ(param_name(name), name) << "no parameter";
}

TEST(SimParams, FlagAndFileKeysSetTheSameValue) {
  const SimConfig base = preset_config("instant");
  for (const auto& [name, c] : cases()) {
    SCOPED_TRACE(name);
    SimConfig by_flag = base, by_key = base;
    ASSERT_TRUE(set_param(by_flag, name, c.good, "--" + name));
    ASSERT_TRUE(set_param(by_key, file_key(name), c.good, "f.yaml: " + file_key(name)));
    EXPECT_TRUE(same(by_flag, by_key));
    EXPECT_FALSE(same(by_flag, base)) << "the value did not change the config";
    EXPECT_NO_THROW(validate(by_flag));
    const PresetYaml file(file_key(name), c.good);
    EXPECT_TRUE(same(preset_or_file_config(file.path()), by_flag));
  }
}

TEST(SimParams, FlagAndFileKeysRefuseTheSameValueWithTheSameMessage) {
  const SimConfig base = preset_config("instant");
  for (const auto& [name, c] : cases()) {
    if (c.refused == Refused::none) continue;
    SCOPED_TRACE(name);
    const std::string key = file_key(name);
    SimConfig by_flag = base, by_key = base;
    const std::string flag_error = refusal([&] {
      set_param(by_flag, name, c.bad, "--" + name);
      validate(by_flag);
    });
    const std::string key_error = refusal([&] {
      set_param(by_key, key, c.bad, "FILE: " + key);
      validate(by_key);
    });
    const PresetYaml file(key, c.bad);
    const std::string file_error = refusal([&] { (void)preset_or_file_config(file.path()); });
    if (c.refused == Refused::by_validate) {
      EXPECT_EQ(flag_error, key_error);
      EXPECT_EQ(file_error, flag_error);
      const std::string flag = "--" + (c.flag.empty() ? name : c.flag);
      EXPECT_NE(flag_error.find(flag + " " + c.bad + " "), std::string::npos) << flag_error;
    } else {  // the parser names the field it was given
      EXPECT_NE(flag_error, "(no error)");
      std::string as_flag = key_error;
      const size_t at = as_flag.find("FILE: " + key);
      if (at != std::string::npos) as_flag.replace(at, 6 + key.size(), "--" + name);
      EXPECT_EQ(as_flag, flag_error);
      EXPECT_NE(file_error, "(no error)");
    }
  }
}

}  // namespace
}  // namespace sb::sim
