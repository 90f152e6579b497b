// A session's conversation (workload/conversation.h): each turn carries the earlier turns'
// user messages and the answers given, verbatim, and counts the history it repeats.
#include "workload/conversation.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sb::workload {
namespace {

using nlohmann::json;

WorkItem user(std::string text, int64_t tokens) {
  WorkItem w;
  w.prompt = std::move(text);
  w.input_tokens = tokens;
  w.max_tokens = 16;
  w.request_class = "chat";
  return w;
}

TEST(Conversation, ChatTurnsCarryTheAnswersAsAssistantMessages) {
  Conversation c(/*chat_messages=*/true);
  EXPECT_EQ(c.history_tokens(), 0);
  const WorkItem t0 = c.next_turn(user("Name a colour.", 4));
  EXPECT_EQ(json::parse(t0.messages_json),
            json::parse(R"([{"role":"user","content":"Name a colour."}])"));
  EXPECT_EQ(t0.input_tokens, 4);
  EXPECT_EQ(t0.max_tokens, 16);
  EXPECT_EQ(t0.request_class, "chat");
  c.add_answer(" Blue, \"sky\" blue.", 5);
  EXPECT_EQ(c.history_tokens(), 9);  // 4 prompt + 5 answer

  const WorkItem t1 = c.next_turn(user("Another?", 2));
  EXPECT_EQ(json::parse(t1.messages_json), json::parse(R"([
      {"role":"user","content":"Name a colour."},
      {"role":"assistant","content":" Blue, \"sky\" blue."},
      {"role":"user","content":"Another?"}])"));
  EXPECT_EQ(t1.input_tokens, 11);  // 9 of history + 2
  c.add_answer(" Red.", 2);
  EXPECT_EQ(c.history_tokens(), 13);

  const WorkItem t2 = c.next_turn(user("And a third?", 3));
  const json m = json::parse(t2.messages_json);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[3], json::parse(R"({"role":"assistant","content":" Red."})"));
  EXPECT_EQ(m[4]["content"], "And a third?");
  EXPECT_EQ(t2.input_tokens, 16);
  EXPECT_EQ(c.turns(), 3);
}

TEST(Conversation, TextTurnsStartWithThePreviousPromptAndAnswer) {
  Conversation c(/*chat_messages=*/false);
  WorkItem first = user("Request 0: hello", 4);
  first.messages_json = R"([{"role":"user","content":"ignored"}])";
  const WorkItem t0 = c.next_turn(first);
  EXPECT_EQ(t0.prompt, "Request 0: hello");
  EXPECT_TRUE(t0.messages_json.empty());
  c.add_answer(" one two", 2);
  const WorkItem t1 = c.next_turn(user("Request 1: more", 4));
  EXPECT_EQ(t1.prompt, "Request 0: hello one two\nRequest 1: more");
  EXPECT_EQ(t1.prompt.rfind(t0.prompt + " one two", 0), 0u);  // a byte-exact prefix
  EXPECT_EQ(t1.input_tokens, 10);
  c.add_answer(" three", 1);
  const WorkItem t2 = c.next_turn(user("Request 2: end", 4));
  EXPECT_EQ(t2.prompt.rfind(t1.prompt + " three\n", 0), 0u);
  EXPECT_EQ(t2.input_tokens, 15);  // 10 + 1 + 4
}

}  // namespace
}  // namespace sb::workload
