// Secrets (issue 7 scope 6): --api-key-file refuses a key file others can read,
// a key from a file never reaches an output, and a key bound for plain http to a
// non-loopback host draws a warning.
#include <gtest/gtest.h>

#include "run_binary.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr const char* kKey = "sk-file-secret-7f3a91";

using sb::testing::CmdResult;
CmdResult run(const std::string& args) {
  return sb::testing::run_servebench(args);
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() /
             ("servebench-keyfile-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

fs::path key_file(const fs::path& dir, mode_t mode) {
  const fs::path p = dir / "key";
  std::ofstream(p) << "  " << kKey << "  \n";
  ::chmod(p.c_str(), mode);
  return p;
}

TEST(ApiKeyFile, RefusesAFileOthersCanRead) {
  TempDir d("mode");
  const auto key = key_file(d.path, 0644);
  const CmdResult r = run("prof --sim instant -n 1 --no-progress --api-key-file " + key.string() +
                          " -o " + (d.path / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--api-key-file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("chmod 600"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kKey), std::string::npos) << r.out;

  const CmdResult both =
      run("prof --sim instant -n 1 --api-key-env HOME --api-key-file " + key.string());
  EXPECT_EQ(both.code, 2) << both.out;
  const CmdResult missing =
      run("prof --sim instant -n 1 --api-key-file " + (d.path / "nope").string());
  EXPECT_EQ(missing.code, 2) << missing.out;
}

TEST(ApiKeyFile, KeyFromAFileNeverReachesTheOutputs) {
  TempDir d("secret");
  const auto key = key_file(d.path, 0600);
  const fs::path out = d.path / "out";
  const CmdResult r = run("prof --sim instant -n 3 --no-progress --api-key-file " + key.string() +
                          " -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find(kKey), std::string::npos) << r.out;
  int files = 0;
  for (const auto& f : fs::recursive_directory_iterator(out)) {
    if (!f.is_regular_file()) continue;
    ++files;
    std::ifstream in(f.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str().find(kKey), std::string::npos) << f.path();
  }
  EXPECT_GE(files, 3);  // requests.jsonl, summary.json, summary.csv
}

TEST(ApiKeyFile, PlainHttpToANonLoopbackHostWarns) {
  TempDir d("warn");
  const auto key = key_file(d.path, 0600);
  // 192.0.2.1 (TEST-NET-1) answers nothing: the run ends as unreachable (3) after the warning.
  const CmdResult remote =
      run("prof --base-url http://192.0.2.1:9 -n 1 --no-progress --connect-timeout 300ms "
          "--api-key-file " +
          key.string() + " -o " + (d.path / "a").string());
  EXPECT_NE(remote.out.find("warning"), std::string::npos) << remote.out;
  EXPECT_NE(remote.out.find("plain http to 192.0.2.1"), std::string::npos) << remote.out;
  EXPECT_EQ(remote.out.find(kKey), std::string::npos) << remote.out;

  const CmdResult header =
      run("prof --base-url http://192.0.2.1:9 -n 1 --no-progress --connect-timeout 300ms "
          "-H 'X-Api-Key: hdr-secret-55' -o " +
          (d.path / "b").string());
  EXPECT_NE(header.out.find("plain http"), std::string::npos) << header.out;
  EXPECT_EQ(header.out.find("hdr-secret-55"), std::string::npos) << header.out;

  for (const char* url : {"http://127.0.0.1:1", "http://localhost:1", "https://192.0.2.1:9"}) {
    const CmdResult quiet = run(std::string("prof --base-url ") + url +
                                " -n 1 --no-progress --connect-timeout 300ms --api-key-file " +
                                key.string() + " -o " + (d.path / "c").string());
    EXPECT_EQ(quiet.out.find("plain http"), std::string::npos) << url << "\n" << quiet.out;
  }
}

}  // namespace
