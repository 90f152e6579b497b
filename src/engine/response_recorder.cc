#include "engine/response_recorder.h"

#include <fmt/format.h>

#include "common/buffer_trim.h"
#include "common/error_clip.h"

#include "workload/token_estimate.h"

namespace sb::engine {

ResponseRecorder::ResponseRecorder(protocol::Adapter& adapter, bool stream, size_t max_event_bytes,
                                   bool keep_text)
    : adapter_(adapter), stream_(stream), keep_text_(keep_text), parser_(max_event_bytes) {}

void ResponseRecorder::begin(metrics::RequestRecord& record) {
  record_ = &record;
  parser_.reset();
  memo_.reset();
  clear_and_trim(body_);  // a large body's memory is not kept for the next (common/buffer_trim.h)
  first_bytes_.clear();
  // A long answer's gaps are given back, as clear_and_trim() gives back a large body.
  if (itl_ms_.capacity() * sizeof(float) > kBufferKeepBytes) std::vector<float>().swap(itl_ms_);
  itl_ms_.clear();
  stopped_ = final_seen_ = false;
  last_text_ns_ = first_text_ns_ = first_content_ns_ = body_arrived_ns_ = metrics::kNoTime;
  text_events_ = content_chars_ = reasoning_chars_ = event_tokens_ = 0;
  usage_tokens_ = usage_reasoning_tokens_ = -1;
  usage_from_details_ = false;
}

void ResponseRecorder::fail(ErrorClass c, std::string message) {
  stopped_ = true;
  if (record_->error_class != ErrorClass::ok) return;  // the first cause wins
  record_->error_class = c;
  record_->error = clip_error(message);
}

void ResponseRecorder::on_text_event(bool content, int64_t now_ns) {
  if (first_text_ns_ == metrics::kNoTime) first_text_ns_ = now_ns;
  if (content && first_content_ns_ == metrics::kNoTime) first_content_ns_ = now_ns;
  if (last_text_ns_ != metrics::kNoTime)
    itl_ms_.push_back(static_cast<float>(static_cast<double>(now_ns - last_text_ns_) / 1e6));
  last_text_ns_ = now_ns;
  ++text_events_;
}

void ResponseRecorder::flush_text_times() {
  auto& r = *record_;
  if (text_events_ == 0) return;
  if (r.t_first_ns == metrics::kNoTime) r.t_first_ns = first_text_ns_;
  if (r.t_first_content_ns == metrics::kNoTime) r.t_first_content_ns = first_content_ns_;
  r.t_last_ns = last_text_ns_;
  r.events += text_events_;
  r.itl_ms.insert(r.itl_ms.end(), itl_ms_.begin(), itl_ms_.end());
  text_events_ = 0;
  itl_ms_.clear();
}

void ResponseRecorder::apply_text(std::string_view text, int64_t now_ns) {
  if (text.empty()) return;
  on_text_event(true, now_ns);
  if (keep_text_) record_->output_text.append(text);
  content_chars_ += text.size();
}

void ResponseRecorder::apply(const protocol::Decoded& d, int64_t now_ns) {
  auto& r = *record_;
  if (d.text_event) on_text_event(d.content_chars > 0, now_ns);
  if (keep_text_ && d.content_chars > 0) r.output_text.append(d.text);
  content_chars_ += d.content_chars;
  reasoning_chars_ += d.reasoning_chars;
  event_tokens_ += d.tokens;
  if (d.completion_tokens) {
    usage_tokens_ = *d.completion_tokens;
    usage_from_details_ = d.completion_tokens_from_details;
  }
  if (d.prompt_tokens) r.input_tokens = *d.prompt_tokens;
  if (d.reasoning_tokens) usage_reasoning_tokens_ = *d.reasoning_tokens;
  if (d.server_timings) r.server.merge(*d.server_timings);
  if (d.final) final_seen_ = true;
  if (d.error != ErrorClass::ok) fail(d.error, d.error_message);
  // embeddings / rerank: one item per input sent, or the answer is not the one asked for.
  if (d.items && r.items >= 0 && *d.items != r.items)
    fail(ErrorClass::malformed,
         fmt::format("sent {} inputs, the response holds {} items", r.items, *d.items));
}

bool ResponseRecorder::on_event(std::string_view data, int64_t now_ns) {
  if (const auto text = memo_.match(data)) {
    apply_text(*text, now_ns);  // as apply(protocol::decoded_text(*text), now_ns)
  } else {
    const protocol::Decoded d = adapter_.decode_event(data);
    memo_.learn(data, d);
    apply(d, now_ns);
  }
  return !stopped_;
}

bool ResponseRecorder::on_body(std::string_view bytes, int64_t now_ns) {
  if (!stream_) {
    body_.append(bytes);
    body_arrived_ns_ = now_ns;
    return true;
  }
  append_clipped(first_bytes_, bytes);
  bool keep_going = true;
  const auto result = parser_.feed(bytes, [&](const sse::Event& e) {
    if (keep_going) keep_going = on_event(e.data, now_ns);
  });
  if (result == sse::FeedResult::event_too_large) {
    fail(ErrorClass::malformed, fmt::format("an SSE event exceeded {} bytes (--max-event-bytes)",
                                            parser_.max_event_bytes()));
    return false;
  }
  return keep_going;
}

void ResponseRecorder::on_error_status(int status) {
  record_->status = status;
  fail(error_class_from_status(status), fmt::format("HTTP {}", status));
}

bool ResponseRecorder::on_error_body(std::string_view bytes) {
  append_clipped(body_, bytes);
  return true;
}

void ResponseRecorder::finish(int64_t now_ns, bool complete) {
  auto& r = *record_;
  r.t_end_ns = now_ns;
  if (r.status >= 300 || (r.status > 0 && r.status < 200)) {
    // Non-2xx: the message is the body prefix (or the status line when empty).
    if (!body_.empty()) r.error = body_;
  } else if (!failed() && !stream_) {
    if (!complete) {
      fail(ErrorClass::incomplete_stream, "the connection closed before the whole body arrived");
    } else {
      // The body's text arrived with its last bytes, not when the request was finished.
      apply(adapter_.decode_body(body_),
            body_arrived_ns_ != metrics::kNoTime ? body_arrived_ns_ : now_ns);
    }
  } else if (!failed() && stream_ && !final_seen_) {
    if (parser_.events() == 0 && !first_bytes_.empty()) {
      fail(ErrorClass::malformed, fmt::format("not an SSE stream: the body starts with '{}'",
                                              first_bytes_.substr(0, 200)));
    } else if (complete && parser_.has_partial()) {
      fail(ErrorClass::malformed, "the stream ended inside an SSE event");
    } else {
      fail(
          ErrorClass::incomplete_stream,
          fmt::format("the stream ended before its final event after {} events", parser_.events()));
    }
  }

  flush_text_times();

  // Output tokens: server usage/details first, else the estimate (docs/metrics.md).
  const int64_t estimate = event_tokens_ > 0 ? static_cast<int64_t>(event_tokens_)
                                             : workload::estimate_tokens_from_bytes(text_bytes());
  if (usage_tokens_ >= 0) {
    r.output_tokens = usage_tokens_;
    r.output_tokens_source =
        usage_from_details_ ? metrics::TokenSource::details : metrics::TokenSource::usage;
    if (text_bytes() > 0 || event_tokens_ > 0) {
      r.output_tokens_alt = estimate;
      r.output_tokens_alt_source = metrics::TokenSource::estimate;
    }
  } else if (estimate > 0) {
    r.output_tokens = estimate;
    r.output_tokens_source = metrics::TokenSource::estimate;
  } else {
    r.output_tokens = 0;
    r.output_tokens_source = metrics::TokenSource::none;
  }

  // Reasoning tokens: a positive usage count first (OpenAI reports 0 for every non-reasoning
  // request), else the estimate from the reasoning text; none when neither says it reasoned.
  if (usage_reasoning_tokens_ > 0) {
    r.reasoning_tokens = usage_reasoning_tokens_;
    r.reasoning_tokens_source = metrics::TokenSource::usage;
  } else if (reasoning_chars_ > 0) {
    r.reasoning_tokens = workload::estimate_tokens_from_bytes(reasoning_chars_);
    r.reasoning_tokens_source = metrics::TokenSource::estimate;
  } else {
    r.reasoning_tokens = -1;
    r.reasoning_tokens_source = metrics::TokenSource::none;
  }
}

}  // namespace sb::engine
