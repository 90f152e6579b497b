#pragma once
// Exact match after SQuAD v1.1's normalize_answer(): lowercase, drop ASCII punctuation
// (Python string.punctuation: !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~), drop the words "a", "an",
// "the", collapse whitespace. Differences from the Python original, stated: lowercasing is
// ASCII only (other letters keep their case), and an article is dropped when it is a whole
// whitespace-separated word after punctuation removal (Python's \b also splits at non-word
// symbols such as U+2014).
#include <string>
#include <string_view>

namespace sb::quality {

std::string normalize_answer(std::string_view text);
bool exact_match(std::string_view hypothesis, std::string_view reference);

}  // namespace sb::quality
