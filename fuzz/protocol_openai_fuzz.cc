// Fuzz target: the openai protocol adapter's decode_event / decode_body (see protocol_fuzz.h).
#include "protocol_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return sb::fuzz::fuzz_protocol(sb::protocol::Api::openai, data, size);
}
