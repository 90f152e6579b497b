// Header injection (issue 20): a header name or value, or an API key, with a line break or
// another control character is a usage error at config time, naming the header (never the
// value), for flags, providers.yaml, api-key files and the environment.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/prof_options.h"
#include "common/error.h"
#include "config/engine_config.h"
#include "plan/providers.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSecret = "SECRETVALUE42";

std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sb::Error& e) {
    EXPECT_EQ(e.code(), sb::ExitCode::usage) << e.what();
    return e.what();
  }
  return "(no error)";
}

sb::cli::ProfFlags sim_flags() {
  sb::cli::ProfFlags f;
  f.sim = "instant";
  return f;
}

std::string flag_error(const std::function<void(sb::cli::ProfFlags&)>& set) {
  sb::cli::ProfFlags f = sim_flags();
  set(f);
  return usage_error_of([&] { (void)sb::cli::to_prof_config(f); });
}

TEST(HeaderInjection, HeaderFlagValueWithALineBreak) {
  for (const std::string v :
       {"SECRETVALUE42\r\nX-Evil: 1", "SECRETVALUE42\n", "a\x01SECRETVALUE42"}) {
    const std::string why =
        flag_error([&](sb::cli::ProfFlags& f) { f.headers = {"X-Auth: " + v}; });
    EXPECT_THAT(why, HasSubstr("-H X-Auth")) << why;
    EXPECT_THAT(why, Not(HasSubstr(kSecret))) << why;
  }
}

TEST(HeaderInjection, HeaderFlagNameProblems) {
  EXPECT_THAT(flag_error([](auto& f) { f.headers = {"X Auth: SECRETVALUE42"}; }),
              AllOf(HasSubstr("'X Auth'"), HasSubstr("contains a space"), Not(HasSubstr(kSecret))));
  EXPECT_THAT(flag_error([](auto& f) { f.headers = {"SECRETVALUE42"}; }),
              AllOf(HasSubstr("expected 'Name: value'"), Not(HasSubstr(kSecret))));
}

TEST(HeaderInjection, ValidHeadersPass) {
  sb::cli::ProfFlags f = sim_flags();
  f.headers = {"X-Tenant: t1", "X-Auth:\tv w", "X-Empty:"};
  const auto pc = sb::cli::to_prof_config(f);
  ASSERT_EQ(pc.run.engine.headers.size(), 3u);
  EXPECT_EQ(pc.run.engine.headers[1].second, "v w");
  EXPECT_EQ(pc.run.engine.headers[2].second, "");
}

TEST(HeaderInjection, ApiKeyFromTheEnvironment) {
  ::setenv("SB_TEST_KEY_NL", "SECRETVALUE42\n", 1);
  const std::string why = flag_error([](auto& f) { f.api_key_env = "SB_TEST_KEY_NL"; });
  EXPECT_THAT(why, AllOf(HasSubstr("--api-key-env SB_TEST_KEY_NL"), HasSubstr("line break"),
                         Not(HasSubstr(kSecret))));
  ::setenv("SB_TEST_KEY_OK", "sk-good", 1);
  sb::cli::ProfFlags f = sim_flags();
  f.api_key_env = "SB_TEST_KEY_OK";
  EXPECT_EQ(sb::cli::to_prof_config(f).run.engine.api_key, "sk-good");
}

struct KeyFile {
  fs::path path;
  explicit KeyFile(const std::string& content) {
    path = fs::temp_directory_path() / ("sb-keyfile-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::hash<std::string>{}(content)));
    std::ofstream(path, std::ios::binary) << content;
    ::chmod(path.c_str(), 0600);
  }
  ~KeyFile() { fs::remove(path); }
};

TEST(HeaderInjection, ApiKeyFileTrailingNewlineIsStrippedEmbeddedOneRefused) {
  for (const std::string ok : {"sk-good\n", "  sk-good  \r\n", "sk-good", "sk-good\n\n"}) {
    const KeyFile k(ok);
    sb::cli::ProfFlags f = sim_flags();
    f.api_key_file = k.path.string();
    EXPECT_EQ(sb::cli::to_prof_config(f).run.engine.api_key, "sk-good") << ok;
  }
  for (const std::string bad :
       {"SECRETVALUE42\nsecond-line\n", "SECRETVALUE42\rX", "A\x07SECRETVALUE42\n"}) {
    const KeyFile k(bad);
    const std::string why = flag_error([&](auto& f) { f.api_key_file = k.path.string(); });
    EXPECT_THAT(why, AllOf(HasSubstr("--api-key-file"), HasSubstr("the key contains"),
                           Not(HasSubstr(kSecret))))
        << why;
  }
}

std::string providers_error(const std::string& yaml) {
  return usage_error_of([&] { (void)sb::plan::parse_providers_text(yaml, "providers.yaml"); });
}

TEST(HeaderInjection, ProvidersYamlBlockKeyKeepsItsNewline) {
  const std::string why = providers_error(
      "providers:\n  - id: a\n    base_url: http://x\n    api_key: |\n      SECRETVALUE42\n");
  EXPECT_THAT(why, AllOf(HasSubstr("providers[0] (a).api_key"), HasSubstr("line break"),
                         HasSubstr("|-"), Not(HasSubstr(kSecret))))
      << why;
  // `|-` strips it: accepted.
  const auto ps = sb::plan::parse_providers_text(
      "providers:\n  - id: a\n    base_url: http://x\n    api_key: |-\n      sk-good\n",
      "providers.yaml");
  EXPECT_EQ(ps.at(0).api_key, "sk-good");
}

TEST(HeaderInjection, ProvidersYamlHeaders) {
  const std::string why = providers_error(
      "providers:\n  - id: a\n    base_url: http://x\n    headers:\n      X-Auth: "
      "\"SECRETVALUE42\\r\\nX-Evil: "
      "1\"\n");
  EXPECT_THAT(why, AllOf(HasSubstr("providers[0] (a).headers.X-Auth"), HasSubstr("line break"),
                         Not(HasSubstr(kSecret))))
      << why;
}

TEST(HeaderInjection, ProvidersApiKeyEnvAtApply) {
  ::setenv("SB_TEST_PROVIDER_KEY", "SECRETVALUE42\n", 1);
  const auto ps = sb::plan::parse_providers_text(
      "providers:\n  - id: a\n    base_url: http://x\n    api_key_env: SB_TEST_PROVIDER_KEY\n",
      "providers.yaml");
  sb::engine::EngineConfig e;
  const std::string why = usage_error_of([&] { sb::plan::apply_provider(ps.at(0), {}, e); });
  EXPECT_THAT(why, AllOf(HasSubstr("api_key_env SB_TEST_PROVIDER_KEY"), HasSubstr("line break"),
                         Not(HasSubstr(kSecret))))
      << why;
}

TEST(HeaderInjection, EngineValidateIsTheLastLine) {
  sb::engine::EngineConfig e;
  e.load.num_requests = 1;
  sb::engine::validate(e);
  e.headers = {{"X-Auth", "SECRETVALUE42\nX-Evil: 1"}};
  EXPECT_THAT(usage_error_of([&] { sb::engine::validate(e); }),
              AllOf(HasSubstr("header X-Auth"), Not(HasSubstr(kSecret))));
  e.headers = {{"X\nAuth", "v"}};
  EXPECT_THAT(usage_error_of([&] { sb::engine::validate(e); }), HasSubstr("header name"));
  e.headers.clear();
  e.api_key = "SECRETVALUE42\n";
  EXPECT_THAT(usage_error_of([&] { sb::engine::validate(e); }),
              AllOf(HasSubstr("API key"), Not(HasSubstr(kSecret))));
  e.api_key.clear();
  e.endpoint = "/v1/x\r\nHost: evil";
  EXPECT_THAT(usage_error_of([&] { sb::engine::validate(e); }), HasSubstr("--endpoint"));
}

}  // namespace
