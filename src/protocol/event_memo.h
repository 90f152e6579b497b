#pragma once
// The streamed hot path's shortcut past the JSON parser: the events of one stream differ, as
// servers write them, only in their text (vLLM, SGLang, OpenAI: the same id, created, model and
// nulls in every chunk). An event whose payload is the last learned one's but for the bytes of
// its text string decodes as that one did, with its own text: same structure, same fields.
//
// Sound because the learned event was decoded whole (by the adapter, with simdjson) and its
// text lay verbatim in it (Decoded::text_offset: a JSON string without escapes), and a matching
// payload has the same bytes before the text's opening quote and from its closing quote on,
// with text that keeps the string a string: no '"', no '\', no control character, valid UTF-8.
// Anything else (the last event with its finish_reason, usage, errors, escapes, another
// server's varying fields) misses and is decoded whole. Only "plain" events are learned: text
// and nothing else (no counts, no final, no error), so nothing but the text can differ; and only
// from adapters whose decode_event is a function of the payload alone (those that set
// Decoded::text_offset: OpenAI completions and chat).
#include <optional>
#include <string>
#include <string_view>

#include "protocol/adapter.h"

namespace sb::protocol {

class EventMemo {
 public:
  // Forgets the learned event (a new response).
  void reset();
  // The text of `payload` when it matches the learned event, which then decodes as
  // decoded_text(text) does; else nullopt.
  std::optional<std::string_view> match(std::string_view payload);
  // Learns `payload` when `d`, its whole decoding, is a plain text event with its text
  // verbatim in it. Events that are not (a role chunk, reasoning, usage) cost nothing here;
  // after a few learned payloads in a row that the next one did not match, stops copying.
  void learn(std::string_view payload, const Decoded& d);

 private:
  // The learned payload without its text: bytes_[0, split_) up to and including the text's
  // opening quote, bytes_[split_, end) from its closing quote on. One block, not two: at
  // 1,000 streams every block an event touches is a cache and TLB miss of its own.
  // split_ is 0 until something is learned (a text's opening quote is never a payload's first
  // byte).
  std::string bytes_;
  size_t split_ = 0;
  int relearns_ = 0;  // payloads learned since the last match
};

// A text event and nothing else: what EventMemo may learn.
bool is_plain_text_event(const Decoded& d);

// What a matching payload decodes to: `text` and nothing else.
Decoded decoded_text(std::string_view text);

}  // namespace sb::protocol
