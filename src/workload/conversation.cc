#include "workload/conversation.h"

#include <nlohmann/json.hpp>

namespace sb::workload {
namespace {

void append_message(std::string& out, std::string_view role, std::string_view content) {
  if (!out.empty()) out += ',';
  // An answer cut inside a UTF-8 sequence is sent with U+FFFD rather than refused.
  out += nlohmann::json{{"role", std::string(role)}, {"content", std::string(content)}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

WorkItem Conversation::next_turn(WorkItem user) {
  WorkItem item = std::move(user);
  item.input_tokens += history_tokens_;
  last_input_tokens_ = item.input_tokens;
  if (chat_) {
    pending_ = item.prompt;
    std::string m = messages_;
    append_message(m, "user", pending_);
    item.messages_json = "[" + m + "]";
  } else {
    item.prompt = text_ + item.prompt;
    item.messages_json.clear();
    pending_ = item.prompt;
  }
  ++turns_;
  return item;
}

void Conversation::add_answer(std::string_view text, int64_t output_tokens) {
  if (chat_) {
    append_message(messages_, "user", pending_);
    append_message(messages_, "assistant", text);
  } else {
    text_ = pending_;
    text_ += text;
    text_ += '\n';
  }
  pending_.clear();
  history_tokens_ = last_input_tokens_ + output_tokens;
}

}  // namespace sb::workload
