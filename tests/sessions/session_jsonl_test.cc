// requests.jsonl's session fields: written only for session turns, read back exactly (so
// `summarize` rebuilds summary.json `sessions` from the log).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/request_jsonl.h"

namespace sb::results {
namespace {

TEST(SessionJsonl, WrittenForTurnsAndReadBack) {
  metrics::RequestRecord r;
  r.id = 12;
  r.session_id = 4;
  r.turn = 2;
  r.session_turns = 5;
  r.history_tokens = 321;
  std::string line;
  append_request_jsonl(line, r);
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j.at("session_id"), 4);
  EXPECT_EQ(j.at("turn"), 2);
  EXPECT_EQ(j.at("session_turns"), 5);
  EXPECT_EQ(j.at("history_tokens"), 321);
  const metrics::RequestRecord b = parse_request_jsonl(line);
  EXPECT_EQ(b.session_id, 4);
  EXPECT_EQ(b.turn, 2);
  EXPECT_EQ(b.session_turns, 5);
  EXPECT_EQ(b.history_tokens, 321);

  metrics::RequestRecord plain;
  std::string p;
  append_request_jsonl(p, plain);
  EXPECT_FALSE(nlohmann::json::parse(p).contains("session_id"));
  EXPECT_EQ(parse_request_jsonl(p).session_id, -1);
  EXPECT_EQ(parse_request_jsonl(p).turn, -1);
}

}  // namespace
}  // namespace sb::results
