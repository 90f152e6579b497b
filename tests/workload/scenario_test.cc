#include "workload/scenario.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "common/error.h"
#include "workload/prompt_source.h"

namespace sb::workload {
namespace {

std::string scenario_error(const std::string& name) {
  try {
    PromptSource source({.seed = 1, .scenario = name});
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "";
}

TEST(Scenario, ChatPromptsAre50To100CharactersWithShortAnswers) {
  const PromptSource source({.seed = 11, .scenario = "chat"});
  double chars = 0, out = 0;
  const int n = 2000;
  for (int i = 0; i < n; ++i) {
    const WorkItem item = source.item(static_cast<uint64_t>(i));
    ASSERT_EQ(item.request_class, "chat");
    ASSERT_GE(item.prompt.size(), 50u) << item.prompt;
    ASSERT_LE(item.prompt.size(), 100u) << item.prompt;
    ASSERT_GE(item.max_tokens, 32);
    ASSERT_LE(item.max_tokens, 128);
    chars += static_cast<double>(item.prompt.size());
    out += static_cast<double>(item.max_tokens);
  }
  EXPECT_NEAR(chars / n, 75, 1.5);  // uniform 50..100
  EXPECT_NEAR(out / n, 80, 2.0);    // uniform 32..128
}

TEST(Scenario, LongPromptsAreAtLeast500CharactersWithLongGeneration) {
  const PromptSource source({.seed = 11, .scenario = "long"});
  double chars = 0;
  const int n = 1000;
  for (int i = 0; i < n; ++i) {
    const WorkItem item = source.item(static_cast<uint64_t>(i));
    ASSERT_EQ(item.request_class, "long");
    ASSERT_GE(item.prompt.size(), 500u);
    ASSERT_LE(item.prompt.size(), 2000u);
    ASSERT_GE(item.max_tokens, 256);
    ASSERT_LE(item.max_tokens, 512);
    chars += static_cast<double>(item.prompt.size());
  }
  EXPECT_NEAR(chars / n, 1250, 30);
}

TEST(Scenario, MixedInterleavesAtTheRatioSeeded) {
  for (const auto& [name, chat_share] : {std::pair<std::string, double>{"mixed", 0.70},
                                         {"mixed:80/20", 0.80},
                                         {"mixed:50/50", 0.50}}) {
    SCOPED_TRACE(name);
    const PromptSource source({.seed = 5, .scenario = name});
    std::map<std::string, int> classes;
    int switches = 0;
    std::string previous;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
      const WorkItem item = source.item(static_cast<uint64_t>(i));
      ++classes[item.request_class];
      if (item.request_class == "chat") {
        ASSERT_LE(item.prompt.size(), 100u);
      } else {
        ASSERT_GE(item.prompt.size(), 500u);
      }
      switches += !previous.empty() && previous != item.request_class;
      previous = item.request_class;
    }
    ASSERT_EQ(classes.size(), 2u);
    EXPECT_NEAR(classes["chat"] / double(n), chat_share, 0.025);
    // Interleaved, not in blocks: about 2 p (1 - p) n class changes.
    EXPECT_NEAR(switches / double(n), 2 * chat_share * (1 - chat_share), 0.04);
  }
  // The same seed gives the same sequence; another seed another one.
  const PromptSource a({.seed = 5, .scenario = "mixed"}), b({.seed = 5, .scenario = "mixed"}),
      c({.seed = 6, .scenario = "mixed"});
  int differ = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    EXPECT_EQ(a.item(i).prompt, b.item(i).prompt);
    EXPECT_EQ(a.item(i).request_class, b.item(i).request_class);
    differ += a.item(i).request_class != c.item(i).request_class;
  }
  EXPECT_GT(differ, 20);
}

TEST(Scenario, LengthFlagsOverrideThePreset) {
  const PromptSource source(
      {.seed = 2, .scenario = "mixed", .input_dist = "fixed:300,unit=chars", .output_dist = "16"});
  for (uint64_t i = 0; i < 50; ++i) {
    const WorkItem item = source.item(i);
    EXPECT_EQ(item.prompt.size(), 300u);
    EXPECT_EQ(item.max_tokens, 16);
  }
}

TEST(Scenario, UnknownOrBadNamesAreUsageErrors) {
  std::string msg = scenario_error("chatty");
  EXPECT_NE(msg.find("--scenario 'chatty': unknown scenario; expected chat, long or mixed"),
            std::string::npos)
      << msg;
  EXPECT_NE(scenario_error("mixed:70/20").find("add up to 100"), std::string::npos);
  EXPECT_NE(scenario_error("mixed:abc/20").find("'abc' is not a percentage"), std::string::npos);
  EXPECT_NE(scenario_error("mixed:70").find("CHAT/LONG"), std::string::npos);
  msg = scenario_error("chat");
  EXPECT_EQ(msg, "");
}

}  // namespace
}  // namespace sb::workload
