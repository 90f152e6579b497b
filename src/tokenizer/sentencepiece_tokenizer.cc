#include "tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <fmt/format.h>

#include "common/error.h"

namespace sb::tokenizer {
namespace {

class SentencePieceTokenizer final : public Tokenizer {
 public:
  explicit SentencePieceTokenizer(std::string_view bytes) {
    const auto status = sp_.LoadFromSerializedProto(bytes);
    if (!status.ok())
      throw usage_error(fmt::format("not a SentencePiece model: {}", status.ToString()));
    if (sp_.GetPieceSize() <= 0) throw usage_error("not a SentencePiece model: no pieces");
  }
  std::vector<int> encode(std::string_view text) const override {
    std::vector<int> ids;
    if (!sp_.Encode(text, &ids).ok()) ids.clear();
    return ids;
  }
  std::string decode(const std::vector<int>& ids) const override {
    std::vector<int> known;
    known.reserve(ids.size());
    for (int id : ids)
      if (id >= 0 && id < sp_.GetPieceSize()) known.push_back(id);
    std::string text;
    if (!sp_.Decode(known, &text).ok()) text.clear();
    return text;
  }
  std::string_view kind() const override { return "sentencepiece"; }
  size_t vocab_size() const override { return static_cast<size_t>(sp_.GetPieceSize()); }

 private:
  sentencepiece::SentencePieceProcessor sp_;
};

}  // namespace

std::unique_ptr<Tokenizer> load_sentencepiece(std::string_view bytes) {
  return std::make_unique<SentencePieceTokenizer>(bytes);
}

}  // namespace sb::tokenizer
