#include "workload/prompt_source.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "common/error.h"
#include "workload/token_estimate.h"

namespace sb::workload {
namespace {

constexpr int64_t kMaxInputTokens = 10'000'000;

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

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A tiny, fully specified generator (the same text on every platform), seeded per
// (seed, index).
class Rng {
 public:
  Rng(uint64_t seed, uint64_t index) {
    uint64_t s = index;
    state_ = seed ^ splitmix64(s);
  }
  uint64_t next() { return splitmix64(state_); }
  bool chance(unsigned percent) { return next() % 100 < percent; }
  template <size_t N>
  std::string_view pick(const std::array<std::string_view, N>& words) {
    return words[next() % N];
  }

 private:
  uint64_t state_;
};

void append_sentence(Rng& rng, std::string& out) {
  const size_t start = out.size();
  auto word = [&](std::string_view w) {
    if (out.size() > start) out += ' ';
    out += w;
  };
  auto noun_phrase = [&] {
    word(rng.pick(kDeterminers));
    if (rng.chance(60)) word(rng.pick(kAdjectives));
    word(rng.pick(kNouns));
  };
  noun_phrase();
  if (rng.chance(25)) word(rng.pick(kAdverbs));
  word(rng.pick(kVerbs));
  noun_phrase();
  if (rng.chance(50)) {
    word(rng.pick(kPrepositions));
    noun_phrase();
  }
  out[start] = static_cast<char>(out[start] - 'a' + 'A');  // words are lower-case ASCII
  out += ". ";
}

std::string synthetic_prompt(uint64_t seed, uint64_t index, int64_t input_tokens) {
  const auto target_chars = static_cast<size_t>(input_tokens * kCharsPerToken);
  std::string text = fmt::format("Request {}: ", index);
  text.reserve(target_chars + 128);
  Rng rng(seed, index);
  while (text.size() < target_chars) append_sentence(rng, text);
  text.resize(target_chars);
  if (text.back() == ' ') text.back() = '.';
  return text;
}

std::vector<std::string> read_prompt_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw usage_error(fmt::format("cannot read prompt file \"{}\": it is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw usage_error(
        fmt::format("cannot read prompt file \"{}\": {}", path, std::strerror(errno)));
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw usage_error(fmt::format("cannot read prompt file \"{}\"", path));
  std::string_view rest = content.view();
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // UTF-8 byte-order mark

  std::vector<std::string> prompts;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);              // CRLF files
    if (line.find_first_not_of(" \t\r\v\f") == std::string_view::npos) continue;  // blank
    prompts.emplace_back(line);
  }
  if (prompts.empty()) {
    throw usage_error(fmt::format(
        "prompt file \"{}\" holds no prompt: expected one prompt per line (blank lines are "
        "skipped)",
        path));
  }
  return prompts;
}

}  // namespace

PromptSource::PromptSource(const WorkloadConfig& config) : config_(config) {
  if (!config_.prompt_file.empty()) {
    file_prompts_ = read_prompt_file(config_.prompt_file);
  } else if (config_.input_tokens < 1 || config_.input_tokens > kMaxInputTokens) {
    throw usage_error(fmt::format("invalid input length {}: expected 1 to {} tokens",
                                  config_.input_tokens, kMaxInputTokens));
  }
}

WorkItem PromptSource::item(uint64_t index) const {
  WorkItem item;
  if (file_prompts_.empty()) {
    item.prompt = synthetic_prompt(config_.seed, index, config_.input_tokens);
  } else {
    item.prompt = file_prompts_[index % file_prompts_.size()];
  }
  item.input_tokens = estimate_tokens(item.prompt);
  item.max_tokens = config_.output_tokens;
  return item;
}

}  // namespace sb::workload
