#pragma once
// Shared body of the protocol_*_fuzz targets: one adapter (src/protocol) fed
// untrusted server bytes. Each line of the input is the payload of one SSE event
// (decode_event, in order, on one streaming adapter: adapters may keep state
// across events); the whole input is also a non-streamed body (decode_body).
// Checked: no crash, and what a Decoded reports is consistent with itself.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "fuzz_check.h"
#include "protocol/adapter.h"

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
}

inline int fuzz_protocol(protocol::Api api, const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto stream = fuzz_adapter(api, true);
  std::string_view rest = input;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view event = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    check_decoded(stream->decode_event(event), event);
  }
  check_decoded(fuzz_adapter(api, true)->decode_event(input),
                input);  // the whole input as one event
  auto whole = fuzz_adapter(api, false);
  check_decoded(whole->decode_body(input), input);
  return 0;
}

}  // namespace sb::fuzz
