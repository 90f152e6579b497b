#pragma once
// Turns one HTTP response, as it arrives, into a RequestRecord: SSE framing,
// the API adapter's decoding, and the timestamps of docs/metrics.md. Pure: the
// caller passes the arrival time of each piece of body (ns since run start).
//
// Contract per request: begin(); then, for a 2xx status, on_body() for each body piece (SSE
// events when streaming, else one body kept whole), or for any other status
// on_error_status() once and on_error_body() for each body piece; then finish().
// on_body() returns false when the response should not be read further (error event,
// malformed stream, an event too large): finish() then records what happened.
// on_error_body() keeps the body's first 512 bytes as the message and returns true.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"
#include "protocol/adapter.h"
#include "protocol/event_memo.h"
#include "sse/parser.h"

namespace sb::engine {

class ResponseRecorder {
 public:
  // keep_text: append every event's content text to RequestRecord::output_text.
  ResponseRecorder(protocol::Adapter& adapter, bool stream, size_t max_event_bytes,
                   bool keep_text = false);

  void begin(metrics::RequestRecord& record);
  // A 2xx status arrived: keep body pieces as stream events or as one body.
  bool on_body(std::string_view bytes, int64_t now_ns);
  // A non-2xx status arrived; body pieces go to the error message (first 512 bytes).
  void on_error_status(int status);
  bool on_error_body(std::string_view bytes);
  // The body ended (complete = the HTTP message was complete).
  void finish(int64_t now_ns, bool complete);
  // True once an error has been classified (in-stream error, malformed, ...).
  bool failed() const { return record_->error_class != ErrorClass::ok; }
  // Writes the text times gathered since begin() (first and last text, events, gaps) to the
  // record: finish() does; a caller whose request ended otherwise (an exception) may. A no-op
  // when nothing is gathered (so also when begin() was not called for this request).
  void flush_text_times();
  // An event with text has arrived (RequestRecord::t_first_ns will be set by finish()).
  bool first_text_seen() const { return first_text_ns_ != metrics::kNoTime; }
  // Bytes of output text seen (content + reasoning).
  uint64_t text_bytes() const { return content_chars_ + reasoning_chars_; }
  // Bytes of buffer capacity held now (body, gaps, SSE parser); after begin() at most about
  // kBufferKeepBytes each, whatever the largest response before was (common/buffer_trim.h).
  size_t buffer_capacity_bytes() const {
    return body_.capacity() + first_bytes_.capacity() + itl_ms_.capacity() * sizeof(float) +
           parser_.buffer_capacity_bytes();
  }

 private:
  bool on_event(std::string_view data, int64_t now_ns);
  void apply(const protocol::Decoded& d, int64_t now_ns);
  // apply() of an event that carries `text` and nothing else (an EventMemo hit).
  void apply_text(std::string_view text, int64_t now_ns);
  // The timestamps and counts of an event with output (`content`) or reasoning text.
  void on_text_event(bool content, int64_t now_ns);
  void fail(ErrorClass c, std::string message);

  // What an event touches comes first, together: at 1,000 streams every cache line an event
  // touches is a miss of its own (docs/performance.md). The text times of the response are
  // kept here, not in the record, until finish(), for the same reason.
  protocol::Adapter& adapter_;
  metrics::RequestRecord* record_ = nullptr;
  bool stream_;
  bool keep_text_;
  bool stopped_ = false;  // fail() was called: on_body says stop (the record holds why)
  bool final_seen_ = false;
  int64_t last_text_ns_ = metrics::kNoTime;
  int64_t first_text_ns_ = metrics::kNoTime;     // RequestRecord::t_first_ns
  int64_t first_content_ns_ = metrics::kNoTime;  // RequestRecord::t_first_content_ns
  uint64_t text_events_ = 0;                     // RequestRecord::events
  uint64_t content_chars_ = 0;
  std::vector<float> itl_ms_;  // RequestRecord::itl_ms; its capacity kept between responses
  std::string first_bytes_;    // first bytes of a streamed body, to explain a non-SSE body
  protocol::EventMemo memo_;   // the response's events decoded without parsing (event_memo.h)
  sse::Parser parser_;
  std::string body_;                            // non-stream body, or the error body prefix
  int64_t body_arrived_ns_ = metrics::kNoTime;  // non-stream: when its last piece arrived
  uint64_t reasoning_chars_ = 0;
  uint64_t event_tokens_ = 0;
  int64_t usage_tokens_ = -1;
  int64_t usage_reasoning_tokens_ = -1;  // the usage's reasoning count; -1: none reported
  bool usage_from_details_ = false;
};

}  // namespace sb::engine
