#include "protocol/event_memo.h"

#include <simdjson.h>

#include <cstring>

namespace sb::protocol {
namespace {

// Bytes that may stand between a JSON string's quotes as they are (RFC 8259 §7): no quote,
// no backslash (an escape would make the text differ from its bytes), no control character;
// and valid UTF-8, which simdjson requires of the whole payload.
bool plain_string_bytes(std::string_view s) {
  bool ascii = true;
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == '"' || b == '\\') return false;
    ascii = ascii && b < 0x80;
  }
  return ascii || simdjson::validate_utf8(s.data(), s.size());
}

constexpr int kMaxRelearns = 4;  // a server whose events all differ: stop copying them

}  // namespace

bool is_plain_text_event(const Decoded& d) {
  return d.text_offset >= 0 && d.content_chars == d.text.size() && d.reasoning_chars == 0 &&
         d.tokens == 0 && !d.final && !d.completion_tokens && !d.completion_tokens_from_details &&
         !d.prompt_tokens && !d.reasoning_tokens && d.error == ErrorClass::ok &&
         d.error_message.empty() && !d.server_timings && !d.items;
}

void EventMemo::reset() {
  bytes_.clear();
  split_ = 0;
  relearns_ = 0;
}

std::optional<std::string_view> EventMemo::match(std::string_view payload) {
  if (split_ == 0 || payload.size() < bytes_.size()) return std::nullopt;  // nothing learned
  const size_t after = bytes_.size() - split_;
  if (std::memcmp(payload.data(), bytes_.data(), split_) != 0 ||
      std::memcmp(payload.data() + payload.size() - after, bytes_.data() + split_, after) != 0)
    return std::nullopt;
  const std::string_view text = payload.substr(split_, payload.size() - bytes_.size());
  if (!plain_string_bytes(text)) return std::nullopt;
  relearns_ = 0;
  return text;
}

Decoded decoded_text(std::string_view text) {
  Decoded d;
  d.text = text;
  d.content_chars = static_cast<uint32_t>(text.size());
  d.text_event = !text.empty();
  return d;
}

void EventMemo::learn(std::string_view payload, const Decoded& d) {
  if (relearns_ >= kMaxRelearns || !is_plain_text_event(d)) return;
  const auto at = static_cast<size_t>(d.text_offset);
  if (at == 0 || at + d.text.size() >= payload.size() || payload[at - 1] != '"' ||
      payload[at + d.text.size()] != '"' || payload.compare(at, d.text.size(), d.text) != 0)
    return;  // not where the decoder said: learn nothing
  bytes_.assign(payload.substr(0, at));
  bytes_.append(payload.substr(at + d.text.size()));
  split_ = at;
  ++relearns_;
}

}  // namespace sb::protocol
