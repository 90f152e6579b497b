#pragma once
// Shared body of the protocol_*_fuzz targets: one adapter (src/protocol) fed
// untrusted server bytes. Each line of the input is the payload of one SSE event
// (decode_event, in order, on one streaming adapter: adapters may keep state
// across events); the whole input is also a non-streamed body (decode_body).
// Checked: no crash, what a Decoded reports is consistent with itself, and the events
// decoded as the recorder does (protocol::EventMemo first) decode as a second adapter,
// without the memo, decodes them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz_check.h"
#include "protocol/adapter.h"
#include "protocol/event_memo.h"

namespace sb::fuzz {

inline std::unique_ptr<protocol::Adapter> fuzz_adapter(protocol::Api api, bool stream) {
  protocol::AdapterConfig c;
  c.api = api;
  c.stream = stream;
  c.model = "m";
  if (api == protocol::Api::generic) {
    c.generic_template =
        R"({"inputs":"{{prompt}}","parameters":{"max_new_tokens":{{max_tokens}}}})";
    c.generic_stream_pointer = "/token/text";
    c.generic_body_pointer = "/generated_text";
    c.generic_final_pointer = "/generated_text";
  }
  return protocol::make_adapter(c);
}

inline void check_decoded(const protocol::Decoded& d, std::string_view input) {
  FUZZ_CHECK(d.text.size() <= input.size() * 6 + 16);  // unescaping never grows much
  FUZZ_CHECK(d.error_message.size() <= 512);           // the first 512 bytes (docs/architecture.md)
  if (!d.text.empty()) FUZZ_CHECK(d.text.data() != nullptr);
  if (d.text_offset >= 0) {  // the text lies verbatim where the decoder says
    FUZZ_CHECK(static_cast<size_t>(d.text_offset) + d.text.size() <= input.size());
    FUZZ_CHECK(input.substr(static_cast<size_t>(d.text_offset), d.text.size()) == d.text);
  }
}

// Every field of Decoded but text_offset agrees.
inline void check_same(const protocol::Decoded& a, const protocol::Decoded& b) {
  FUZZ_CHECK(a.content_chars == b.content_chars && a.reasoning_chars == b.reasoning_chars);
  FUZZ_CHECK(a.text_event == b.text_event && a.tokens == b.tokens && a.final == b.final);
  FUZZ_CHECK(a.completion_tokens == b.completion_tokens && a.prompt_tokens == b.prompt_tokens);
  FUZZ_CHECK(a.completion_tokens_from_details == b.completion_tokens_from_details);
  FUZZ_CHECK(a.reasoning_tokens == b.reasoning_tokens && a.items == b.items);
  FUZZ_CHECK(a.error == b.error && a.error_message == b.error_message && a.text == b.text);
  FUZZ_CHECK(a.server_timings.has_value() == b.server_timings.has_value());
}

inline int fuzz_protocol(protocol::Api api, const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto stream = fuzz_adapter(api, true);
  auto memoized = fuzz_adapter(api, true);
  protocol::EventMemo memo;
  std::string_view rest = input;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view event = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    const protocol::Decoded whole = stream->decode_event(event);
    check_decoded(whole, event);
    if (const auto text = memo.match(event)) {
      check_same(protocol::decoded_text(*text), whole);
    } else {
      const protocol::Decoded d = memoized->decode_event(event);
      check_same(d, whole);
      memo.learn(event, d);
    }
  }
  check_decoded(fuzz_adapter(api, true)->decode_event(input),
                input);  // the whole input as one event
  auto whole = fuzz_adapter(api, false);
  check_decoded(whole->decode_body(input), input);
  return 0;
}

}  // namespace sb::fuzz
