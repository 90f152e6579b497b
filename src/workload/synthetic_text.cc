#include "workload/synthetic_text.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "workload/rng.h"

namespace sb::workload {
namespace {

template <size_t N>
std::string_view pick(Rng& rng, const std::array<std::string_view, N>& words) {
  return words[rng.next() % N];
}

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

void append_sentence(Rng& rng, std::string& out) {
  const size_t start = out.size();
  auto word = [&](std::string_view w) {
    if (out.size() > start) out += ' ';
    out += w;
  };
  auto noun_phrase = [&] {
    word(pick(rng, kDeterminers));
    if (rng.chance(60)) word(pick(rng, kAdjectives));
    word(pick(rng, kNouns));
  };
  noun_phrase();
  if (rng.chance(25)) word(pick(rng, kAdverbs));
  word(pick(rng, kVerbs));
  noun_phrase();
  if (rng.chance(50)) {
    word(pick(rng, kPrepositions));
    noun_phrase();
  }
  out[start] = static_cast<char>(out[start] - 'a' + 'A');  // words are lower-case ASCII
  out += ". ";
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
