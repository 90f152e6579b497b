#include "tokenizer/regex_splitter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::tokenizer {

struct RegexSplitter::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(const std::string& pattern) : code_(std::make_unique<Code>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw usage_error(fmt::format("regex '{}' does not compile at offset {}: {}", pattern, offset,
                                  reinterpret_cast<const char*>(message)));
  }
  pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE);  // optional: interpreted when it fails
}

RegexSplitter::~RegexSplitter() = default;

namespace {

// The offset of the UTF-8 character after the one at `i` (text known to be valid UTF-8).
size_t next_char(std::string_view text, size_t i) {
  ++i;
  while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  return i;
}

}  // namespace

void RegexSplitter::split(std::string_view text, bool remove,
                          std::vector<std::string_view>& out) const {
  if (text.empty()) return;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  if (!md) {
    out.push_back(text);
    return;
  }
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  uint32_t options = 0;  // the first call checks the whole subject's UTF-8 once
  size_t pos = 0, last = 0;
  while (pos < text.size()) {
    const int rc = pcre2_match(code_->code, subject, text.size(), pos, options, md, nullptr);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !(options & PCRE2_NO_JIT)) {
      options |= PCRE2_NO_JIT;  // a long run of one class: retry interpreted
      continue;
    }
    if (rc < 0) break;  // no more matches, invalid UTF-8, or a limit: the rest is one piece
    options |= PCRE2_NO_UTF_CHECK;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0], end = ov[1];
    if (end <= start) {  // an empty match: look again one character further
      pos = next_char(text, start);
      continue;
    }
    if (start > last) out.push_back(text.substr(last, start - last));
    if (!remove) out.push_back(text.substr(start, end - start));
    last = pos = end;
  }
  if (last < text.size()) out.push_back(text.substr(last));
  pcre2_match_data_free(md);
}

}  // namespace sb::tokenizer
