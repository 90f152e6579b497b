#include "workload/prompt_source.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "common/error.h"
#include "workload/dataset.h"
#include "workload/image_data.h"
#include "workload/rng.h"
#include "workload/synthetic_text.h"
#include "workload/token_estimate.h"
#include "workload/trace.h"
#include "workload/trace_prompt.h"

namespace sb::workload {
namespace {

namespace fs = std::filesystem;

// Random streams, so that lengths, classes and texts never share draws.
constexpr uint64_t kLengthStream = 0x1E7;
constexpr uint64_t kShuffleStream = 0x5F1;
constexpr uint64_t kPrefixStream = 0x9F;
constexpr uint64_t kSuffixStream = 0x5F;
constexpr const char* kImagePrompt = "Describe this image in detail.";

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

std::string read_whole_file(const std::string& path, std::string_view flag) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw usage_error(fmt::format("{} '{}': a directory, not a file", flag, path));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw usage_error(
        fmt::format("{} '{}': cannot read the file ({})", flag, path, std::strerror(errno)));
  std::ostringstream content;
  content << in.rdbuf();
  return std::move(content).str();
}

}  // namespace

PromptSource::PromptSource(const WorkloadConfig& config) : PromptSource(config, nullptr) {}

PromptSource::PromptSource(const WorkloadConfig& config,
                           std::shared_ptr<const tokenizer::Tokenizer> tok)
    : config_(config), tokenizer_(std::move(tok)) {
  const auto& c = config_;
  const int sources =
      !c.prompt_file.empty() + !c.dataset.empty() + !c.shared_prefix.empty() + !c.scenario.empty();
  if (sources > 1)
    throw usage_error(
        "--scenario, --dataset, --shared-prefix and --prompt-file exclude each other; give one "
        "source of prompts");
  if (c.trace && (sources > 0 || !c.input_dist.empty() || !c.output_dist.empty()))
    throw usage_error(
        "--trace gives every request's prompt and output lengths: leave out --scenario, "
        "--dataset, --shared-prefix, --prompt-file, --input-dist and --output-dist");
  if (c.trace && c.trace->entries.empty()) throw usage_error("--trace: the trace holds no entry");
  if (!tokenizer_ && !c.tokenizer.empty()) tokenizer_ = tokenizer::load_tokenizer(c.tokenizer);

  const auto format = dataset_format_from_string(c.dataset_format);
  if (!format)
    throw usage_error(
        fmt::format("--dataset-format '{}': expected auto, synthetic, jsonl, sharegpt or images",
                    c.dataset_format));
  if (*format == DatasetFormat::synthetic && !c.dataset.empty())
    throw usage_error(
        "--dataset-format synthetic takes no --dataset file; leave out --dataset "
        "(shape synthetic prompts with --input-dist)");
  if (*format != DatasetFormat::auto_detect && *format != DatasetFormat::synthetic &&
      c.dataset.empty())
    throw usage_error(fmt::format("--dataset-format {} needs --dataset PATH", c.dataset_format));

  // Lengths: the scenario's classes, or one default class; --input-dist / --output-dist
  // override them.
  if (!c.scenario.empty()) {
    scenario_ = parse_scenario(c.scenario);
    classes_ = scenario_.classes;
  } else {
    if (c.input_dist.empty() && (c.input_tokens < 1 || c.input_tokens > kMaxLengthTokens) &&
        c.prompt_file.empty() && c.dataset.empty())
      throw usage_error(fmt::format("invalid input length {}: expected 1 to {} tokens",
                                    c.input_tokens, kMaxLengthTokens));
    RequestClass d{"default", LengthSpec::fixed_tokens(std::max<int64_t>(1, c.input_tokens)),
                   LengthSpec::fixed_tokens(std::max<int64_t>(1, c.output_tokens)), 100};
    if (c.output_tokens < 1) d.output.min = d.output.max = c.output_tokens;  // left to the server
    classes_ = {d};
  }
  if (!c.input_dist.empty()) {
    const LengthSpec in = parse_length_spec(c.input_dist, "--input-dist");
    for (auto& k : classes_) k.input = in;
  }
  if (!c.output_dist.empty()) {
    const LengthSpec out = parse_output_length_spec(c.output_dist, "--output-dist");
    for (auto& k : classes_) k.output = out;
  }
  scenario_.classes = classes_;

  if (!c.shared_prefix.empty()) shared_prefix_ = parse_shared_prefix(c.shared_prefix);
  if (!c.prompt_file.empty()) file_prompts_ = read_prompt_file(c.prompt_file);
  if (!c.dataset.empty()) load_dataset();
}

int64_t PromptSource::count_tokens(const std::string& text) const {
  return tokenizer_ ? tokenizer_->count(text) : estimate_tokens(text);
}

std::string PromptSource::text_of_length(uint64_t stream, uint64_t index, std::string head,
                                         int64_t length, LengthUnit unit) const {
  if (unit == LengthUnit::chars)
    return synthetic_text(config_.seed, stream, index, std::move(head),
                          static_cast<size_t>(length));
  if (tokenizer_)
    return synthetic_text_tokens(*tokenizer_, config_.seed, stream, index, std::move(head), length);
  return synthetic_text(config_.seed, stream, index, std::move(head),
                        static_cast<size_t>(length * kCharsPerToken));
}

void PromptSource::load_dataset() {
  const auto& path = config_.dataset;
  auto format = *dataset_format_from_string(config_.dataset_format);
  std::error_code ec;
  const bool is_dir = fs::is_directory(path, ec);
  if (format == DatasetFormat::auto_detect && is_dir) format = DatasetFormat::images;
  if (format == DatasetFormat::auto_detect && image_mime_type(path)) format = DatasetFormat::images;

  DatasetParse parsed;
  fs::path base = fs::path(path).parent_path();
  if (format == DatasetFormat::images) {
    std::vector<fs::path> files;
    if (is_dir) {
      base = path;
      for (const auto& e : fs::directory_iterator(path, ec))
        if (e.is_regular_file() && image_mime_type(e.path().string())) files.push_back(e.path());
    } else {
      files.push_back(path);
    }
    std::sort(files.begin(), files.end());
    for (size_t i = 0; i < files.size(); ++i)
      parsed.entries.push_back({.prompt = kImagePrompt,
                                .image = files[i].string(),
                                .line = static_cast<int64_t>(i) + 1});
    parsed.records = static_cast<int64_t>(files.size());
    if (files.empty())
      throw usage_error(fmt::format(
          "--dataset '{}': no image file (.png, .jpg, .jpeg, .gif, .webp) in it", path));
  } else {
    const std::string text = read_whole_file(path, "--dataset");
    if (format == DatasetFormat::auto_detect) {
      const auto detected = detect_dataset_format(text);
      if (!detected)
        throw usage_error(fmt::format(
            "--dataset '{}': {}; expected JSONL (one JSON object a line) or ShareGPT JSON (an "
            "array), or give --dataset-format",
            path,
            text.find_first_not_of(" \t\r\n") == std::string::npos ? "the file is empty"
                                                                   : "cannot tell its format"));
      format = *detected;
    }
    parsed = format == DatasetFormat::sharegpt ? parse_sharegpt(text) : parse_jsonl(text);
  }

  // Each image becomes its data: URL here; one that cannot be read or is not an image makes its
  // record malformed: skipped and counted (an error with --strict), the rest of the set kept.
  std::erase_if(parsed.entries, [&](DatasetEntry& e) {
    if (e.image.empty() || e.image.starts_with("data:") || e.image.starts_with("http://") ||
        e.image.starts_with("https://"))
      return false;
    const fs::path p = fs::path(e.image).is_absolute() ? fs::path(e.image) : base / e.image;
    try {
      e.image = image_data_url(p.string());
      return false;
    } catch (const Error& err) {
      ++parsed.bad;
      if (!parsed.first_bad || e.line < parsed.first_bad->line)
        parsed.first_bad = DatasetIssue{e.line, err.what()};
      return true;
    }
  });
  const char* unit = format == DatasetFormat::sharegpt ? "entry"
                     : format == DatasetFormat::images ? "file"
                                                       : "line";
  if (parsed.first_bad && config_.strict)
    throw usage_error(
        fmt::format("--dataset '{}' {} {}: {} (--strict; without it malformed "
                    "records are skipped and counted)",
                    path, unit, parsed.first_bad->line, parsed.first_bad->message));
  if (parsed.entries.empty())
    throw usage_error(fmt::format(
        "--dataset '{}' holds no usable record{}", path,
        parsed.first_bad ? fmt::format(" ({} malformed; the first, {} {}: {})", parsed.bad, unit,
                                       parsed.first_bad->line, parsed.first_bad->message)
                         : std::string(": the file is empty")));
  if (parsed.first_bad)
    warning_ = fmt::format(
        "--dataset '{}': skipped {} malformed record{} of {}; the first is {} "
        "{}: {} (--strict makes this an error)",
        path, parsed.bad, parsed.bad == 1 ? "" : "s", parsed.records, unit, parsed.first_bad->line,
        parsed.first_bad->message);

  dataset_.reserve(parsed.entries.size());
  for (DatasetEntry& e : parsed.entries) {
    WorkItem item;
    item.input_tokens = count_tokens(e.prompt);  // text only: images are not counted
    if (!e.image.empty()) {
      item.image_url = e.image;  // a data: URL (above) or the http(s) URL as written
      attach_image(e, item.image_url);
    }
    item.prompt = std::move(e.prompt);
    item.messages_json = std::move(e.messages_json);
    item.max_tokens = e.max_tokens;
    item.reference = std::move(e.reference);
    if (!e.request_class.empty()) item.request_class = std::move(e.request_class);
    dataset_.push_back(std::move(item));
  }
  // A seeded permutation: the order is reproducible, and differs between seeds.
  order_.resize(dataset_.size());
  for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  Rng rng(config_.seed, 0, kShuffleStream);
  for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.next() % i]);
}

WorkItem PromptSource::item(uint64_t index) const {
  if (config_.trace) {
    const Trace& t = *config_.trace;
    const bool warm = index < config_.trace_first_id;
    const uint64_t k = (warm ? index : index - config_.trace_first_id) % t.entries.size();
    TraceEntry e = t.entries[k];
    if (warm) e.hash_ids.clear();
    WorkItem item;
    item.prompt = trace_prompt(tokenizer_.get(), config_.seed, index, e, t.spec.block_tokens);
    item.input_tokens = count_tokens(item.prompt);
    item.max_tokens = std::max<int64_t>(1, e.output_tokens);
    return item;
  }
  if (config_.replay && !config_.replay->empty()) {
    const ReplayLength& r = (*config_.replay)[index % config_.replay->size()];
    WorkItem item;
    item.prompt = text_of_length(0, index, fmt::format("Request {}: ", index),
                                 std::max<int64_t>(1, r.input_tokens), LengthUnit::tokens);
    item.input_tokens = count_tokens(item.prompt);
    item.max_tokens = r.max_tokens;
    item.request_class = r.request_class;
    return item;
  }
  Rng lengths(config_.seed, index, kLengthStream);
  const RequestClass& cls = scenario_.pick(config_.seed, index);
  WorkItem item;
  if (!dataset_.empty()) {
    item = dataset_[order_[index % order_.size()]];
    const int64_t out = cls.output.sample(lengths);
    if (item.max_tokens <= 0) item.max_tokens = out;
    return item;
  }
  if (!file_prompts_.empty()) {
    item.prompt = file_prompts_[index % file_prompts_.size()];
  } else if (shared_prefix_) {
    const auto& s = *shared_prefix_;
    const uint64_t p = index % static_cast<uint64_t>(s.prefixes);
    const uint64_t q =
        (index / static_cast<uint64_t>(s.prefixes)) % static_cast<uint64_t>(s.suffixes);
    item.prompt = text_of_length(kPrefixStream, p, fmt::format("Shared context {}: ", p),
                                 s.prefix_length, s.unit) +
                  "\n" +
                  text_of_length(kSuffixStream, p * static_cast<uint64_t>(s.suffixes) + q,
                                 fmt::format("Question {}: ", q), s.suffix_length, s.unit);
  } else {
    const int64_t in = cls.input.sample(lengths);
    item.prompt = text_of_length(0, index, fmt::format("Request {}: ", index), in, cls.input.unit);
    item.request_class = cls.name;
  }
  item.input_tokens = count_tokens(item.prompt);
  item.max_tokens = cls.output.sample(lengths);
  return item;
}

}  // namespace sb::workload
