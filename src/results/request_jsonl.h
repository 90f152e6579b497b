#pragma once
// requests.jsonl: one JSON object per line per request, written as each request finishes.
// Part of the output contract of docs/metrics.md (extend, never rename). Fields, in this order:
//   id                      integer
//   class                   string, the workload class
//   warmup, ok              booleans
//   status                  HTTP status, 0 when no response arrived
//   error_class             "ok" or a class of docs/architecture.md
//   error                   string ("" when none); invalid UTF-8 replaced by U+FFFD
//   t_sched_s, t_send_s, t_end_s   seconds since run start, or null
//   ttft_ms, ttft_content_ms, tpot_ms, e2e_ms, scheduled_e2e_ms, dispatch_delay_ms
//                           derived metrics (RequestRecord), or null when undefined
//   session_id, turn, session_turns, history_tokens
//                           only in a session run (--session-concurrency): the session (from 0),
//                           the turn's index in it (from 0), its planned turns, and the input
//                           tokens repeating the earlier turns' prompts and answers
//   priority_class, priority
//                           only with --priority-mix: the request's class and its numeric
//                           priority (lower = served earlier; load/priority_mix.h)
//   input_tokens, output_tokens    integers
//   output_tokens_source    "usage" | "details" | "tokenizer" | "estimate" | "none"
//   output_tokens_alt       independent second count, or null
//   output_tokens_alt_source       its source, or null
//   reasoning_tokens        reasoning tokens (part of output_tokens), or null: no reasoning
//   reasoning_tokens_source "usage" | "estimate", or null
//   reasoning_ms            ttft_content_ms - ttft_ms (TTFO - TTFT) of a reasoning request,
//                           or null (RequestRecord::reasoning_ms; written only, derived on read)
//   conn_reused             sent on a kept-alive connection
//   pool_wait_ms, connect_ms, tls_ms, write_ms, ttfb_ms, headers_ms, read_lag_max_ms
//                           the client's phases (RequestRecord::ClientPhases), null when the
//                           phase did not happen (connect_ms and tls_ms on a reused connection)
//   server_timing_source, server_queue_ms, server_prefill_ms, server_decode_ms,
//   server_inference_ms, server_total_ms, server_cached_tokens, client_network_ms
//                           only when the server reported any (common/server_times.h); null
//                           for what it did not; client_network_ms = e2e - server_total_ms
//   events                  text-bearing events received
//   itl_ms                  array of the gaps between consecutive text-bearing events
//   quality                 only when scored against a reference: quality/quality_json.h
//   output                  only when the text was kept (prof --save-outputs): the content text
// t_end_s, ttft_content_ms, dispatch_delay_ms and the *_alt fields extend the §3 list so that
// parse_request_jsonl() can rebuild every RequestRecord field that summarize_run() reads.
// Times go through seconds/milliseconds as shortest-round-trip doubles; parsing rounds back to
// the same integer nanoseconds for any run shorter than ~100 days.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"

namespace sb::results {

// Appends one line (terminated by '\n') for `r` to `out`. Uses fmt only (hot-ish path).
void append_request_jsonl(std::string& out, const metrics::RequestRecord& r);

// Inverse of append_request_jsonl (trailing '\n' optional). Missing fields and null ones keep
// the RequestRecord defaults; unknown fields are ignored. Throws sb::Error naming the problem
// when the line is not a JSON object (a line cut short included) or a field has the wrong type.
// Uses one reader per thread (below).
metrics::RequestRecord parse_request_jsonl(std::string_view line);

// parse_request_jsonl with a parser and a padded line buffer of its own, reused for every line
// (simdjson on-demand: no allocation per line once they have grown to the longest line).
class RequestJsonlReader {
 public:
  RequestJsonlReader();
  ~RequestJsonlReader();
  RequestJsonlReader(const RequestJsonlReader&) = delete;
  RequestJsonlReader& operator=(const RequestJsonlReader&) = delete;
  metrics::RequestRecord parse(std::string_view line);
  // The same into `r`, which must be default-constructed (a log read into place: no move).
  void parse_into(std::string_view line, metrics::RequestRecord& r);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
  std::vector<char> buffer_;
};

}  // namespace sb::results
