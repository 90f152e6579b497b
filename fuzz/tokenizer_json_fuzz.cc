// Fuzz target: the Hugging Face tokenizer.json loader (src/tokenizer/bpe_tokenizer.h). Checked:
// it returns a tokenizer or throws sb::Error (usage), nothing else; a loaded tokenizer
// encodes the input itself and a few fixed texts without crashing, every id it returns
// decodes, and count() agrees with encode().
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "fuzz_check.h"
#include "tokenizer/bpe_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto tok = sb::tokenizer::parse_bpe_tokenizer_json(text);
    FUZZ_CHECK(tok->vocab_size() > 0);
    for (std::string_view sample :
         {text.substr(0, 256), std::string_view("Hello world, it's 2024!\n  \t x"),
          std::string_view("caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xFF\xFE")}) {
      const auto ids = tok->encode(sample);
      FUZZ_CHECK(tok->count(sample) == static_cast<int64_t>(ids.size()));
      (void)tok->decode(ids);
    }
  } catch (const sb::Error& e) {
    FUZZ_CHECK(e.code() == sb::ExitCode::usage);
  }
  return 0;
}
