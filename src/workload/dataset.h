#pragma once
// Dataset parsers (`--dataset PATH --dataset-format ...`): pure functions, text in, entries
// and a count of malformed records out; file reading and images live in prompt_source.cc.
//
// JSONL, one JSON object per line (blank lines ignored):
//   {"prompt": "..."}                                  a plain prompt, or
//   {"messages": [{"role": "user", "content": ...}]}   chat messages, sent as they are, or
//   {"conversations": [{"from": "human", "value": ...}, ...]}   one ShareGPT conversation,
// plus, optionally: "max_tokens" (positive integer: this request's output length),
// "reference" (string: the expected answer, for quality scoring), "image" (string: an image
// file, relative to the dataset's folder, or a data:/http(s): URL) and "class" (string: the
// request class reported in the results).
//
// ShareGPT JSON: an array of {"conversations": [{"from": "human"|"user"|"gpt"|"assistant"|
// "system", "value": "..."}]} (or "messages" with role/content).
//
// Multi-turn: a conversation gives one entry per human turn; each carries the whole history
// before it (earlier turns and the dataset's answers) as chat messages, and its reference is
// the dataset's answer to it. A conversation's first turn without a system message is a plain
// prompt. For APIs without messages (TGI, completions) a multi-message entry is sent as a
// transcript: "System: ...\nUser: ...\nAssistant: ...\nUser: ...\nAssistant:".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::workload {

enum class DatasetFormat { auto_detect, synthetic, jsonl, sharegpt, images };
// "auto", "synthetic", "jsonl", "sharegpt", "images".
std::optional<DatasetFormat> dataset_format_from_string(std::string_view name);
std::string_view to_string(DatasetFormat format);

struct DatasetEntry {
  std::string prompt;         // the text (a transcript when there are several messages)
  std::string messages_json;  // chat messages (JSON array) when more than one plain user turn
  int64_t max_tokens = 0;     // 0: the configured output length
  std::string reference;      // expected answer; empty when none
  std::string image;          // image file or URL as written; empty when none
  std::string request_class;  // empty: "default"
  int64_t line = 0;           // the 1-based line (JSONL) or array element (ShareGPT) it came from
};

struct DatasetIssue {
  int64_t line = 0;  // 1-based line (JSONL) or array element (ShareGPT)
  std::string message;
};

struct DatasetParse {
  std::vector<DatasetEntry> entries;
  int64_t records = 0;  // non-blank lines / array elements seen
  int64_t bad = 0;      // of those, malformed (skipped)
  std::optional<DatasetIssue> first_bad;
};

// One JSONL line: appends its entries to `out` (a conversation gives one per human turn) and
// returns nullopt, or returns why the line is malformed and appends nothing.
std::optional<std::string> parse_jsonl_line(std::string_view line, std::vector<DatasetEntry>& out);

DatasetParse parse_jsonl(std::string_view text);
DatasetParse parse_sharegpt(std::string_view text);

// From the first non-blank byte: '[' ShareGPT, '{' JSONL; nullopt for anything else.
std::optional<DatasetFormat> detect_dataset_format(std::string_view text);

}  // namespace sb::workload
