#include "workload/dataset.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace sb::workload {
namespace {

using nlohmann::json;

TEST(Jsonl, PromptWithEveryOptionalField) {
  const auto p = parse_jsonl(
      R"({"prompt": "What is 2+2?", "max_tokens": 8, "reference": "4", "image": "cat.png", "class": "math"})");
  ASSERT_EQ(p.entries.size(), 1u);
  EXPECT_EQ(p.bad, 0);
  const DatasetEntry& e = p.entries[0];
  EXPECT_EQ(e.prompt, "What is 2+2?");
  EXPECT_TRUE(e.messages_json.empty());
  EXPECT_EQ(e.max_tokens, 8);
  EXPECT_EQ(e.reference, "4");
  EXPECT_EQ(e.image, "cat.png");
  EXPECT_EQ(e.request_class, "math");
}

TEST(Jsonl, MessagesAreSentAsTheyAreWithATranscriptForPlainApis) {
  const auto p = parse_jsonl(
      R"({"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]})"
      "\n"
      R"({"messages": [{"role": "user", "content": "Only me"}]})");
  ASSERT_EQ(p.entries.size(), 2u);
  const json m = json::parse(p.entries[0].messages_json);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0]["role"], "system");
  EXPECT_EQ(m[1]["content"], "Hi");
  EXPECT_EQ(p.entries[0].prompt, "System: Be brief.\nUser: Hi\nAssistant:");
  // A single user message is a plain prompt.
  EXPECT_EQ(p.entries[1].prompt, "Only me");
  EXPECT_TRUE(p.entries[1].messages_json.empty());
}

TEST(Jsonl, MultiTurnConversationCarriesTheHistoryInEachTurn) {
  const auto p = parse_jsonl(
      R"({"conversations": [{"from": "human", "value": "Name a colour."}, {"from": "gpt", "value": "Blue."},)"
      R"( {"from": "human", "value": "Another?"}, {"from": "gpt", "value": "Red."},)"
      R"( {"from": "human", "value": "Thanks"}], "max_tokens": 5})");
  ASSERT_EQ(p.entries.size(), 3u);
  EXPECT_EQ(p.entries[0].prompt, "Name a colour.");
  EXPECT_TRUE(p.entries[0].messages_json.empty());
  EXPECT_EQ(p.entries[0].reference, "Blue.");
  const json second = json::parse(p.entries[1].messages_json);
  ASSERT_EQ(second.size(), 3u);
  EXPECT_EQ(second[0], (json{{"role", "user"}, {"content", "Name a colour."}}));
  EXPECT_EQ(second[1], (json{{"role", "assistant"}, {"content", "Blue."}}));
  EXPECT_EQ(second[2], (json{{"role", "user"}, {"content", "Another?"}}));
  EXPECT_EQ(p.entries[1].reference, "Red.");
  EXPECT_EQ(p.entries[1].prompt,
            "User: Name a colour.\nAssistant: Blue.\nUser: Another?\nAssistant:");
  EXPECT_EQ(json::parse(p.entries[2].messages_json).size(), 5u);
  EXPECT_EQ(p.entries[2].reference, "");
  for (const auto& e : p.entries) EXPECT_EQ(e.max_tokens, 5);
}

TEST(Jsonl, MalformedLinesAreCountedWithTheFirstLineNumber) {
  const std::string text =
      "{\"prompt\": \"one\"}\n"
      "\n"                                                                 // blank: not a record
      "{\"text\": \"no prompt here\"}\n"                                   // line 3
      "not json\n"                                                         // line 4
      "{\"prompt\": \"\"}\r\n"                                             // line 5
      "{\"prompt\": \"two\", \"max_tokens\": 0}\n"                         // line 6
      "{\"prompt\": 5}\n"                                                  // line 7
      "[1, 2]\n"                                                           // line 8
      "{\"messages\": []}\n"                                               // line 9
      "{\"messages\": [{\"role\": \"assistant\", \"content\": \"x\"}]}\n"  // line 10
      "{\"prompt\": \"three\", \"reference\": 3}\n"                        // line 11
      "{\"prompt\": \"four\"}";                                            // no final newline
  const auto p = parse_jsonl(text);
  ASSERT_EQ(p.entries.size(), 2u);
  EXPECT_EQ(p.entries[0].prompt, "one");
  EXPECT_EQ(p.entries[1].prompt, "four");
  EXPECT_EQ(p.records, 11);
  EXPECT_EQ(p.bad, 9);
  ASSERT_TRUE(p.first_bad);
  EXPECT_EQ(p.first_bad->line, 3);
  EXPECT_EQ(p.first_bad->message, "no \"prompt\", \"messages\" or \"conversations\" field");

  std::vector<DatasetEntry> out;
  auto why = [&](std::string_view line) {
    out.clear();
    const auto err = parse_jsonl_line(line, out);
    EXPECT_TRUE(out.empty());
    return err.value_or("");
  };
  EXPECT_NE(why("not json").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(why(R"({"prompt": ""})"), "\"prompt\" must be a non-empty string");
  EXPECT_NE(why(R"({"prompt": "x", "max_tokens": 0})").find("\"max_tokens\" must be an integer"),
            std::string::npos);
  EXPECT_NE(why(R"({"prompt": "x", "max_tokens": "8"})").find("max_tokens"), std::string::npos);
  EXPECT_EQ(why(R"({"prompt": "x", "image": 1})"), "\"image\" must be a string");
  EXPECT_EQ(why(R"({"messages": [{"content": "x"}]})"), "messages[0] has no string \"role\"");
  EXPECT_EQ(why(R"({"conversations": [{"from": "gpt", "value": "x"}]})"),
            "the conversation has no human turn with text");
}

TEST(Jsonl, EveryCutOfAFileGivesAPrefixOfItsEntries) {
  const std::string text =
      "{\"prompt\": \"alpha\", \"max_tokens\": 3}\n"
      "{\"messages\": [{\"role\": \"user\", \"content\": \"beta\"}]}\r\n"
      "\n"
      "{\"conversations\": [{\"from\": \"human\", \"value\": \"g1\"}, {\"from\": \"gpt\", "
      "\"value\": \"r\"}, {\"from\": \"human\", \"value\": \"g2\"}]}\n"
      "{\"prompt\": \"delta\", \"reference\": \"d\"}\n";
  const auto full = parse_jsonl(text);
  ASSERT_EQ(full.entries.size(), 5u);
  ASSERT_EQ(full.bad, 0);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    SCOPED_TRACE(cut);
    const auto head = parse_jsonl(text.substr(0, cut));
    const auto tail = parse_jsonl(text.substr(cut));
    ASSERT_LE(head.entries.size(), full.entries.size());
    for (size_t i = 0; i < head.entries.size(); ++i) {
      EXPECT_EQ(head.entries[i].prompt, full.entries[i].prompt);
      EXPECT_EQ(head.entries[i].messages_json, full.entries[i].messages_json);
      EXPECT_EQ(head.entries[i].max_tokens, full.entries[i].max_tokens);
    }
    // A cut inside a line breaks at most that line, on each side.
    EXPECT_LE(head.bad, 1);
    EXPECT_LE(tail.bad, 1);
    EXPECT_GE(head.entries.size() + tail.entries.size() + 3, full.entries.size());
  }
}

TEST(ShareGpt, ArrayOfConversationsWithBadEntriesCounted) {
  const std::string text = R"([
    {"id": "a", "conversations": [{"from": "human", "value": "Hello?"}, {"from": "gpt", "value": "Hi!"}]},
    {"id": "b"},
    {"id": "c", "conversations": [{"from": "system", "value": "You are terse."},
                                  {"from": "human", "value": "Why?"}, {"from": "gpt", "value": "Because."},
                                  {"from": "human", "value": "Why not?"}]},
    {"id": "d", "conversations": [{"from": "human", "value": 7}]},
    {"id": "e", "messages": [{"role": "user", "content": "role/content style"}]}
  ])";
  const auto p = parse_sharegpt(text);
  EXPECT_EQ(p.records, 5);
  EXPECT_EQ(p.bad, 2);
  ASSERT_TRUE(p.first_bad);
  EXPECT_EQ(p.first_bad->line, 2);  // the array element
  ASSERT_EQ(p.entries.size(), 4u);
  EXPECT_EQ(p.entries[0].prompt, "Hello?");
  EXPECT_EQ(p.entries[0].reference, "Hi!");
  const json first_c = json::parse(p.entries[1].messages_json);  // system + human
  ASSERT_EQ(first_c.size(), 2u);
  EXPECT_EQ(first_c[0]["role"], "system");
  EXPECT_EQ(p.entries[1].reference, "Because.");
  EXPECT_EQ(json::parse(p.entries[2].messages_json).size(), 4u);
  EXPECT_EQ(p.entries[3].prompt, "role/content style");

  const auto not_array = parse_sharegpt(R"({"conversations": []})");
  EXPECT_EQ(not_array.bad, 1);
  EXPECT_EQ(not_array.first_bad->message, "expected a JSON array of conversations");
  const auto broken = parse_sharegpt("[{\"conversations\": ");
  EXPECT_NE(broken.first_bad->message.find("the file is not valid JSON"), std::string::npos);
  EXPECT_TRUE(broken.entries.empty());
}

TEST(DatasetFormat, NamesAndDetection) {
  for (const char* name : {"auto", "synthetic", "jsonl", "sharegpt", "images"})
    EXPECT_EQ(to_string(*dataset_format_from_string(name)), name);
  EXPECT_FALSE(dataset_format_from_string("csv"));
  EXPECT_EQ(detect_dataset_format("  \n[{}]"), DatasetFormat::sharegpt);
  EXPECT_EQ(detect_dataset_format("\xEF\xBB\xBF{\"prompt\": 1}"), DatasetFormat::jsonl);
  EXPECT_FALSE(detect_dataset_format("prompt one\nprompt two"));
  EXPECT_FALSE(detect_dataset_format("   "));
}

}  // namespace
}  // namespace sb::workload
