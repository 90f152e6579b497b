#pragma once
// One session's conversation so far (--session-concurrency, docs/workloads.md): the turns'
// user prompts and the answers the server really gave, and the next turn's request built
// from them. Pure: no I/O; one per session, owned by the coroutine running it.
#include <cstdint>
#include <string>
#include <string_view>

#include "workload/prompt_source.h"

namespace sb::workload {

class Conversation {
 public:
  // `chat_messages`: the API takes chat messages (openai-chat, openai-responses, anthropic);
  // otherwise the history goes into the prompt text.
  explicit Conversation(bool chat_messages) : chat_(chat_messages) {}

  // The next turn's request: `user`'s prompt is this turn's user message (its max_tokens and
  // class are kept, its messages_json ignored), after the history.
  //   chat: messages_json = [user 0, assistant 0, ..., user k] (each answer as the assistant
  //         message, verbatim);
  //   text: prompt = user 0 + answer 0 + "\n" + ... + user k, so a turn's prompt starts with
  //         the previous turn's prompt and answer, byte for byte.
  // input_tokens = history_tokens() + user.input_tokens.
  WorkItem next_turn(WorkItem user);
  // The answer to the turn last built: its text and its output token count.
  void add_answer(std::string_view text, int64_t output_tokens);

  // Input plus output tokens of every turn answered so far (0 before the first answer): the
  // leading part of the next turn's prompt that a prefix cache could serve, i.e. the ideal
  // cache hit of that turn.
  int64_t history_tokens() const { return history_tokens_; }
  int64_t turns() const { return turns_; }  // turns built so far

 private:
  bool chat_;
  std::string messages_;  // chat: the history's messages, comma-separated JSON objects
  std::string text_;      // text: the history, ending with "\n" after the last answer
  std::string pending_;   // the last turn's user message (chat) or whole prompt (text)
  int64_t history_tokens_ = 0;
  int64_t last_input_tokens_ = 0;
  int64_t turns_ = 0;
};

}  // namespace sb::workload
