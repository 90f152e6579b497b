#pragma once
// Shared checks of the YAML loader targets (providers_yaml_fuzz, plan_yaml_fuzz): what a
// provider that src/plan/providers.cc accepted promises to the runner, and that a rejected
// file fails with sb::Error(usage) naming the file.
#include <cctype>
#include <cmath>
#include <exception>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "config/engine_config.h"
#include "fuzz_check.h"
#include "net/url.h"
#include "plan/providers.h"
#include "protocol/adapter.h"
#include "sim/config.h"

namespace sb::fuzz {

// The one way a YAML loader may refuse its input: sb::Error(usage) "FILE...: ...".
inline void check_usage_error(const Error& e, std::string_view file) {
  FUZZ_CHECK(e.code() == ExitCode::usage);
  const std::string_view what = e.what();
  FUZZ_CHECK(what.size() > file.size() && what.substr(0, file.size()) == file);
}

inline bool id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

inline bool is_http_url(const std::string& s, bool plain_only) {
  try {
    const net::Url u = net::parse_url(s);
    return !u.host.empty() && (!plain_only || !u.tls);
  } catch (const Error&) {
    return false;
  }
}

inline void check_provider(const plan::Provider& p) {
  FUZZ_CHECK(!p.id.empty() && !p.name.empty() && !p.where.empty());
  for (char c : p.id) FUZZ_CHECK(id_char(c));
  FUZZ_CHECK(p.api.empty() || p.api == "tgi" || p.api == "openai" || p.api == "openai-chat");
  // Exactly one kind of target: http(s) endpoints, or a known simulator preset.
  FUZZ_CHECK(p.endpoints.empty() != p.sim.empty());
  for (const auto& url : p.endpoints) FUZZ_CHECK(is_http_url(url, false));
  if (!p.sim.empty()) {
    bool known = false;
    for (const auto& s : sim::preset_names()) known = known || s == p.sim;
    FUZZ_CHECK(known);
  }
  FUZZ_CHECK(p.sim_replicas >= 1 && p.sim_replicas <= 64);
  if (p.sim.empty()) FUZZ_CHECK(p.sim_replicas == 1);
  if (p.launch) {
    FUZZ_CHECK(p.sim.empty());
    FUZZ_CHECK(!p.launch->command.empty());
    FUZZ_CHECK(is_http_url(p.launch->ready_url, true));
    FUZZ_CHECK(std::isfinite(p.launch->ready_timeout_s) && p.launch->ready_timeout_s > 0);
    FUZZ_CHECK(std::isfinite(p.launch->stop_grace_s) && p.launch->stop_grace_s >= 0);
  }
  FUZZ_CHECK(p.api_key.empty() || p.api_key_env.empty());
  // Headers go into the request head: nothing that would split it.
  for (const auto& [name, value] : p.headers) {
    FUZZ_CHECK(!name.empty() && name.find_first_of(" :\r\n") == std::string::npos);
    FUZZ_CHECK(value.find_first_of("\r\n") == std::string::npos);
  }

  // apply_provider (what a run does with it) succeeds, or fails only for an unset
  // api_key_env variable.
  std::vector<std::string> sim_urls;
  if (!p.sim.empty())
    for (int i = 0; i < p.sim_replicas; ++i)
      sim_urls.push_back("http://127.0.0.1:" + std::to_string(20000 + i));
  engine::EngineConfig e;
  try {
    plan::apply_provider(p, sim_urls, e);
  } catch (const Error& err) {
    FUZZ_CHECK(err.code() == ExitCode::usage && !p.api_key_env.empty());
    return;
  }
  const size_t urls = p.sim.empty() ? p.endpoints.size() : sim_urls.size();
  FUZZ_CHECK(!e.client.url.host.empty());
  FUZZ_CHECK(e.extra_endpoints.size() + 1 == urls);
  FUZZ_CHECK(e.headers.size() == p.headers.size());
  FUZZ_CHECK(e.load_balancer == p.load_balancer);
}

inline void check_providers(const std::vector<plan::Provider>& ps) {
  FUZZ_CHECK(!ps.empty());
  std::set<std::string> ids;
  for (const auto& p : ps) {
    check_provider(p);
    FUZZ_CHECK(ids.insert(p.id).second);
  }
}

}  // namespace sb::fuzz
