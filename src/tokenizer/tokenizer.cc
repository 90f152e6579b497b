#include "tokenizer/tokenizer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"

namespace sb::tokenizer {

std::unique_ptr<Tokenizer> load_tokenizer_from_bytes(std::string_view bytes,
                                                     std::string_view name) {
  const auto first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && bytes[first] == '{') {
    try {
      return parse_bpe_tokenizer_json(bytes);
    } catch (const Error& e) {
      throw usage_error(fmt::format("--tokenizer '{}': {}", name, e.what()));
    }
  }
  try {
    return load_sentencepiece(bytes);
  } catch (const Error& e) {
    throw usage_error(
        fmt::format("--tokenizer '{}': neither a SentencePiece tokenizer.model nor a Hugging Face "
                    "tokenizer.json ({})",
                    name, e.what()));
  }
}

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw usage_error(fmt::format(
        "--tokenizer '{}': a directory; give the tokenizer.json or tokenizer.model file in it",
        path));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw usage_error(
        fmt::format("--tokenizer '{}': cannot read the file ({})", path, std::strerror(errno)));
  std::ostringstream content;
  content << in.rdbuf();
  const std::string bytes = std::move(content).str();
  if (bytes.empty()) throw usage_error(fmt::format("--tokenizer '{}': the file is empty", path));
  return load_tokenizer_from_bytes(bytes, path);
}

}  // namespace sb::tokenizer
