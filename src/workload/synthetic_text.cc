#include "workload/synthetic_text.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "workload/rng.h"

namespace sb::workload {
namespace {

// A small English vocabulary; sentences follow "Det [Adj] Noun [Adv] Verb Det [Adj] Noun
// [Prep Det Noun]." so the text reads like (odd) English rather than word salad.
constexpr std::array<std::string_view, 12> kDeterminers = {
    "the", "your", "every", "this", "that", "each", "one", "our", "their", "some", "another", "my"};
constexpr std::array<std::string_view, 40> kAdjectives = {
    "quiet",   "bright",  "careful", "ancient",  "small",  "large",   "curious", "busy",
    "gentle",  "distant", "early",   "late",     "simple", "strange", "patient", "heavy",
    "narrow",  "wide",    "golden",  "silver",   "hidden", "open",    "modern",  "rural",
    "clever",  "honest",  "warm",    "cold",     "sudden", "steady",  "green",   "empty",
    "crowded", "proud",   "humble",  "familiar", "quick",  "slow",    "brave",   "calm"};
constexpr std::array<std::string_view, 64> kNouns = {
    "river",    "teacher",  "garden",   "engine",  "village",   "letter",  "window",   "market",
    "student",  "mountain", "library",  "kitchen", "doctor",    "bridge",  "farmer",   "journey",
    "question", "machine",  "forest",   "harbor",  "painter",   "story",   "record",   "station",
    "captain",  "museum",   "council",  "recipe",  "network",   "lantern", "orchard",  "traveler",
    "merchant", "valley",   "signal",   "castle",  "musician",  "island",  "workshop", "report",
    "neighbor", "schedule", "festival", "compass", "notebook",  "sailor",  "meadow",   "server",
    "theory",   "harvest",  "winter",   "morning", "committee", "map",     "voice",    "road",
    "child",    "city",     "friend",   "storm",   "bell",      "ship",    "field",    "answer"};
constexpr std::array<std::string_view, 40> kVerbs = {
    "found",     "carried",  "watched",  "built",      "described", "opened",  "followed",
    "repaired",  "measured", "painted",  "answered",   "visited",   "crossed", "studied",
    "collected", "welcomed", "explored", "remembered", "shared",    "planned", "finished",
    "moved",     "guided",   "noticed",  "protected",  "improved",  "tested",  "recorded",
    "changed",   "cleaned",  "reached",  "showed",     "praised",   "ignored", "joined",
    "replaced",  "checked",  "sold",     "wrote",      "heard"};
constexpr std::array<std::string_view, 16> kAdverbs = {
    "slowly",   "quickly",   "quietly", "carefully", "suddenly",   "often",   "rarely",  "gladly",
    "silently", "patiently", "boldly",  "eagerly",   "gracefully", "happily", "finally", "soon"};
constexpr std::array<std::string_view, 14> kPrepositions = {
    "near",  "behind",  "across", "beyond", "under", "above",  "beside",
    "along", "through", "inside", "around", "after", "before", "without"};

// A word as the sentence writer copies it: a space, the word, zeros to 16 bytes, so that every
// copy is one fixed 16-byte move (a prompt of 1,000 characters is ~170 words, built per request
// on the client's hot path).
struct PaddedWord {
  char bytes[16] = {};
  size_t size = 0;  // the space and the word
};

template <size_t N>
constexpr std::array<PaddedWord, N> padded(const std::array<std::string_view, N>& words) {
  std::array<PaddedWord, N> out{};
  for (size_t i = 0; i < N; ++i) {
    if (words[i].size() + 1 > sizeof out[i].bytes) throw "a word longer than 15 letters";
    out[i].bytes[0] = ' ';
    for (size_t k = 0; k < words[i].size(); ++k) out[i].bytes[k + 1] = words[i][k];
    out[i].size = words[i].size() + 1;
  }
  return out;
}

constexpr auto kDeterminerWords = padded(kDeterminers);
constexpr auto kAdjectiveWords = padded(kAdjectives);
constexpr auto kNounWords = padded(kNouns);
constexpr auto kVerbWords = padded(kVerbs);
constexpr auto kAdverbWords = padded(kAdverbs);
constexpr auto kPrepositionWords = padded(kPrepositions);

template <size_t N>
const PaddedWord& pick(Rng& rng, const std::array<PaddedWord, N>& words) {
  return words[rng.next() % N];
}

// Appends one sentence, composed in a local buffer and appended at once. The buffer holds 11
// words of up to 16 bytes each, written at the running end, and ". ".
void append_sentence(Rng& rng, std::string& out) {
  char sentence[11 * 16 + 2];
  size_t n = 0;
  auto word = [&](const PaddedWord& w) {
    std::memcpy(sentence + n, w.bytes, sizeof w.bytes);
    n += w.size;
  };
  auto noun_phrase = [&] {
    word(pick(rng, kDeterminerWords));
    if (rng.chance(60)) word(pick(rng, kAdjectiveWords));
    word(pick(rng, kNounWords));
  };
  noun_phrase();
  if (rng.chance(25)) word(pick(rng, kAdverbWords));
  word(pick(rng, kVerbWords));
  noun_phrase();
  if (rng.chance(50)) {
    word(pick(rng, kPrepositionWords));
    noun_phrase();
  }
  sentence[1] = static_cast<char>(sentence[1] - 'a' + 'A');  // words are lower-case ASCII
  sentence[n++] = '.';
  sentence[n++] = ' ';
  out.append(sentence + 1, n - 1);  // without the first word's space
}

constexpr size_t kMaxChars = size_t{1} << 31;

}  // namespace

std::string synthetic_text(uint64_t seed, uint64_t stream, uint64_t index, std::string head,
                           size_t chars) {
  std::string text = std::move(head);
  text.reserve(chars + 128);
  Rng rng(seed, index, stream);
  while (text.size() < chars) append_sentence(rng, text);
  text.resize(chars);
  if (!text.empty() && text.back() == ' ') text.back() = '.';
  return text;
}

std::string synthetic_text_tokens(const tokenizer::Tokenizer& tok, uint64_t seed, uint64_t stream,
                                  uint64_t index, std::string head, int64_t tokens) {
  if (tokens <= 0) return "";
  // A text with more tokens than asked, so that the cut falls inside it.
  size_t chars = static_cast<size_t>(tokens) * 6 + head.size() + 16;
  std::vector<int> ids;
  for (;;) {
    ids = tok.encode(synthetic_text(seed, stream, index, head, chars));
    if (static_cast<int64_t>(ids.size()) > tokens + 1 || chars >= kMaxChars) break;
    chars *= 2;
  }
  const auto total = static_cast<int64_t>(ids.size());
  int64_t take = std::min(tokens, total);
  std::string best;
  int64_t best_miss = INT64_MAX;
  for (int attempt = 0; attempt < 8 && take >= 1; ++attempt) {
    std::string text = tok.decode(std::vector<int>(ids.begin(), ids.begin() + take));
    const int64_t n = tok.count(text);
    const int64_t miss = std::llabs(n - tokens);
    if (miss < best_miss) {
      best_miss = miss;
      best = std::move(text);
    }
    if (miss == 0) break;
    const int64_t next = std::clamp<int64_t>(take + (tokens - n), 1, total);
    if (next == take) break;
    take = next;
  }
  if (best_miss == 0) return best;
  // Cuts alone did not land on it (e.g. the piece after the cut is a lone space that the
  // tokenizer folds away): trim characters at the end, or add a short one, and recount.
  std::string text = best;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  for (int i = 0; i < 16 && !text.empty() && tok.count(text) > tokens; ++i) text.pop_back();
  for (const char* tail : {"", ".", " a", ",", "!", " the"}) {
    const std::string candidate = text + tail;
    if (tok.count(candidate) == tokens) return candidate;
  }
  return best;
}

}  // namespace sb::workload
