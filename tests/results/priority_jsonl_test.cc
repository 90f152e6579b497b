// requests.jsonl's priority_class / priority (--priority-mix): written only when the request
// has a class, and read back into the record the summary reads.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "results/request_jsonl.h"

namespace sb::results {
namespace {

TEST(PriorityJsonl, ClassAndPriorityRoundTripAndAreAbsentWithoutAMix) {
  metrics::RequestRecord r;
  r.id = 7;
  r.priority_class = "normal";
  r.priority = 1;
  std::string line;
  append_request_jsonl(line, r);
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j.at("priority_class"), "normal");
  EXPECT_EQ(j.at("priority"), 1);
  const metrics::RequestRecord back = parse_request_jsonl(line);
  EXPECT_EQ(back.priority_class, "normal");
  EXPECT_EQ(back.priority, 1);

  metrics::RequestRecord plain;
  std::string plain_line;
  append_request_jsonl(plain_line, plain);
  const auto p = nlohmann::json::parse(plain_line);
  EXPECT_FALSE(p.contains("priority_class"));
  EXPECT_FALSE(p.contains("priority"));
  EXPECT_EQ(parse_request_jsonl(plain_line).priority_class, "");
}

}  // namespace
}  // namespace sb::results
