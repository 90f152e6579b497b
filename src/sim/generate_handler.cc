#include "sim/generate_handler.h"

#include "sim/warning_pragmas.h"

#include <chrono>
#include <cmath>
#include <deque>
#include <memory>
#include <string>

#include <sys/socket.h>

#include <fmt/format.h>

#include "common/clock.h"
#include "sim/engine.h"
#include "sim/engine_mailbox.h"
#include "sim/fault.h"
#include "sim/http_bytes.h"
#include "sim/sched_request_of.h"

namespace sb::sim {
namespace {

using tcp = asio::ip::tcp;
using boost::system::error_code;
using Request = http::request<http::string_body>;

using Item = MailItem;
using Stream = EngineMailbox;

// One request's connection and ground truth, from arrival to ctx.finish.
struct Exchange {
  const GenerateContext& ctx;
  tcp::socket& sock;
  TraceRecord tr;
  ApiKind api;
  bool keep;  // the client asked for keep-alive
};

// The record of a request just read: its number, arrival and x-request-id.
TraceRecord begin_trace(const GenerateContext& ctx, const Request& req, ApiKind api) {
  TraceRecord tr;
  tr.seq = ++ctx.seq;
  tr.arrival_ns = trace_now_ns();
  tr.api = std::string(to_string(api));
  tr.stream = api == ApiKind::tgi_stream;
  if (auto it = req.find("x-request-id"); it != req.end()) tr.request_id = std::string(it->value());
  return tr;
}

// Writes `out`, records the request, and returns whether the connection may go on.
awaitable<bool> answer(Exchange& x, const std::string& out) {
  bool ok = co_await write_all(x.sock, out);
  x.ctx.finish(x.tr);
  co_return (ok && x.keep);
}

// An error response: `status` with the API's error body carrying `message`; the
// record's error is `error`.
awaitable<bool> reject(Exchange& x, int status, std::string_view message, std::string error) {
  x.tr.status = status;
  x.tr.error = std::move(error);
  std::string out =
      http_response(status, "application/json", error_body(x.api, status, message), x.keep);
  co_return co_await answer(x, out);
}

// A body parse_generate refused: its status and body, or (TGI /generate_stream's
// semantic errors) an in-stream error event after HTTP 200.
awaitable<bool> reject_invalid(Exchange& x, const HttpError& e) {
  x.tr.status = e.in_stream ? 200 : e.status;
  x.tr.error = "validation";
  std::string out = e.in_stream ? std::string(kTgiSseHeaders) +
                                      chunk(Formatter::tgi_stream_error(e.message, "validation")) +
                                      "0\r\n\r\n"
                                : http_response(e.status, "application/json", e.body, x.keep);
  co_return co_await answer(x, out);
}

// A request the engine would not admit: TGI 429 "Model is overloaded" (in-stream on
// /generate_stream); OpenAI 429 when the queue is full, else 503 (no KV-cache room);
// Anthropic 529 overloaded_error either way.
awaitable<bool> reject_unadmitted(Exchange& x, bool stream, Admission verdict) {
  const bool queue_full = verdict == Admission::queue_full;
  std::string error = queue_full ? "queue_full" : "overloaded";
  if (is_tgi(x.api)) {
    if (stream) {
      x.tr.status = 200;
      x.tr.error = error;
      std::string out(kTgiSseHeaders);
      out += chunk(Formatter::tgi_stream_error("Model is overloaded", "overloaded"));
      out += "0\r\n\r\n";
      co_return co_await answer(x, out);
    }
    co_return co_await reject(x, 429, "Model is overloaded", error);
  }
  const int status = unadmitted_status(x.api, queue_full);
  if (status == 529) co_return co_await reject(x, status, "Overloaded", error);
  if (queue_full)
    co_return co_await reject(x, status, "The server is busy: the request queue is full", error);
  co_return co_await reject(x, status, "The server is out of KV-cache capacity for this request",
                            error);
}

// The never_respond fault: reads (and ignores) until the client closes. Never keeps
// the connection.
awaitable<bool> never_respond(Exchange& x) {
  x.tr.error = "fault:never_respond";
  char byte;
  error_code ec;
  while (!ec)
    co_await x.sock.async_read_some(asio::buffer(&byte, 1),
                                    asio::redirect_error(use_awaitable, ec));
  x.ctx.finish(x.tr);
  co_return false;
}

// The parsed request's sizes in its record, with room for every token's times.
void note_request(TraceRecord& tr, const GenRequest& g) {
  tr.stream = g.stream;
  tr.prompt_tokens = g.prompt_tokens;
  tr.max_new_tokens = g.max_new_tokens;
  tr.token_ns.reserve(static_cast<size_t>(g.output_tokens));
  tr.token_due_ns.reserve(static_cast<size_t>(g.output_tokens));
  tr.batch_sizes.reserve(static_cast<size_t>(g.output_tokens));
}

// Adds the dice's faults (SimConfig::faults) to the header's: the header wins
// field by field; the record's fault gains "rate" when any was drawn.
void roll_dice(FaultDice* dice, int64_t output_tokens, Faults& f, TraceRecord& tr) {
  if (!dice || dice->empty()) return;
  Faults d = dice->roll(output_tokens);
  if (!d.any()) return;
  if (!f.status) f.status = d.status;
  if (!f.reset_after) f.reset_after = d.reset_after;
  if (!f.disconnect_after) f.disconnect_after = d.disconnect_after;
  if (!f.malformed_after) f.malformed_after = d.malformed_after;
  if (!f.stall_ms && d.stall_ms) {
    f.stall_ms = d.stall_ms;
    f.stall_after = d.stall_after;
  }
  tr.fault += tr.fault.empty() ? "rate" : ",rate";
}

// "chatcmpl-…" / "cmpl-…" / "resp_…" / "msg_…": the sim's seed and the request's number,
// 16 hex digits each (TGI responses carry no id).
std::string response_id(ApiKind api, uint64_t sim_seed, uint64_t seq) {
  if (is_tgi(api)) return {};
  const std::string_view prefix = api == ApiKind::chat        ? "chatcmpl-"
                                  : api == ApiKind::responses ? "resp_"
                                  : api == ApiKind::anthropic ? "msg_"
                                                              : "cmpl-";
  return fmt::format("{}{:016x}{:016x}", prefix, sim_seed, seq);
}

// One admitted request's response in progress.
struct Generation {
  Exchange& x;
  const GenRequest& g;
  const Faults& f;
  Stream& stream;
  bool tgi;
  std::string resp_id;
  Formatter fm;
  int64_t sent = 0;        // tokens handed to the socket (or produced, non-streaming)
  bool stalled = false;    // the stall fault has struck
  std::string event, out;  // one token's SSE event and its chunk, kept across tokens
  std::string tail;        // the fast path: the bytes of a token the socket did not take
  int64_t tail_t = -1;     // ... and the instant its first bytes went (-1: none went)
};

// Gives up on the request: cancels it in the engine and closes the connection, with an
// RST when `rst`; the record's error is `why`. Returns false (no keep-alive) for the caller.
bool drop(Generation& gen, bool rst, std::string why) {
  Exchange& x = gen.x;
  x.ctx.engine.cancel(x.tr.seq);
  error_code ec;
  if (rst)
    x.sock.set_option(tcp::socket::linger(true, 0), ec);
  else
    x.sock.shutdown(tcp::socket::shutdown_both, ec);
  x.sock.close(ec);
  x.tr.error = std::move(why);
  x.ctx.finish(x.tr);
  return false;
}

// The connection cut a fault asks for once `sent` tokens are out (a reset wins).
enum class Cut { none, disconnect, reset };
Cut cut_after(const Faults& f, int64_t sent) {
  if (f.reset_after && *f.reset_after == sent) return Cut::reset;
  if (f.disconnect_after && *f.disconnect_after == sent) return Cut::disconnect;
  return Cut::none;
}

// llama.cpp's timings from the record: prefill from admission to the first token's
// step end, decode from there to the last token's (the model's instants).
LlamaTimings llamacpp_timings(const TraceRecord& tr) {
  LlamaTimings t;
  t.prompt_n = tr.prompt_tokens;
  t.cache_n = tr.cached_tokens;
  t.predicted_n = static_cast<int64_t>(tr.token_due_ns.size());
  if (tr.admission_ns >= 0 && !tr.token_due_ns.empty()) {
    t.prompt_ms = static_cast<double>(tr.token_due_ns.front() - tr.admission_ns) / 1e6;
    t.predicted_ms = static_cast<double>(tr.token_due_ns.back() - tr.token_due_ns.front()) / 1e6;
  }
  return t;
}

// Token e's chunk: the chat role chunk before the first token, the stream's end
// (usage, [DONE]) and the last chunk after the last. One chunk per token, built in
// buffers kept across tokens.
const std::string& token_chunk(Generation& gen, const SchedEvent& e) {
  gen.event.clear();
  if (e.index == 1) gen.event += gen.fm.stream_start();
  gen.fm.append_token_event(gen.event, e.index, e.last);
  if (e.last && gen.x.api == ApiKind::llamacpp) gen.fm.set_timings(llamacpp_timings(gen.x.tr));
  if (e.last) gen.event += gen.fm.stream_end();
  gen.out.clear();
  append_chunk(gen.out, gen.event);
  if (e.last) gen.out += "0\r\n\r\n";
  return gen.out;
}

// A streamed token's record once all its bytes are with the socket, its first handed over at
// `t` (the ground truth: the instant the bytes went, not a later acknowledgement).
void note_sent(Generation& gen, int64_t t) {
  if (gen.sent == 0) gen.x.tr.first_token_ns = t;
  gen.x.tr.token_ns.push_back(t);
  ++gen.sent;
}

// The token's model instant and batch, noted before its bytes go.
void note_due(Generation& gen, const SchedEvent& e) {
  gen.x.tr.token_due_ns.push_back(trace_ns(e.time));
  gen.x.tr.batch_sizes.push_back(e.batch_size);
}

// The fast path (engine_mailbox.h) of a stream without faults: a token that is neither the
// first nor the last is formatted and sent with one non-blocking send from the mailbox, the
// coroutine left asleep; what the socket did not take goes to gen.tail for the coroutine.
FastTake send_token_now(Generation& gen, const MailItem& it) {
  const SchedEvent& e = it.event;
  if (it.admission || e.kind != SchedEvent::Kind::token || e.last || e.index <= 1)
    return FastTake::declined;
  note_due(gen, e);
  const std::string& bytes = token_chunk(gen, e);
  const int64_t t = trace_now_ns();
  // Never blocks the thread (Asio's synchronous write_some would wait for room).
  const ssize_t done =
      ::send(gen.x.sock.native_handle(), bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (done == static_cast<ssize_t>(bytes.size())) {
    note_sent(gen, t);
    return FastTake::whole;
  }
  // An error is met again by the coroutine's write. No byte gone: its write stamps the token.
  gen.tail.assign(bytes, done > 0 ? static_cast<size_t>(done) : 0);
  gen.tail_t = done > 0 ? t : -1;
  return FastTake::in_part;
}

// Removes the fast path when the response ends, however it ends: it refers to the Generation.
struct FastPathGuard {
  Stream& stream;
  ~FastPathGuard() { stream.set_fast_path({}); }
};

// The malformed fault on a stream: an event cut off mid-JSON. False (request finished)
// when the client is gone.
awaitable<bool> send_malformed(Generation& gen) {
  std::string bad =
      gen.tgi ? "data:{\"index\":" : "data: {\"id\":\"" + gen.resp_id + "\",\"choices\":[{\"text";
  bad += "\n\n";
  if (!co_await write_all(gen.x.sock, chunk(bad))) co_return drop(gen, false, "client_gone");
  if (gen.x.tr.error.empty()) gen.x.tr.error = "fault:malformed";
  co_return true;
}

// The non-streaming body (cut in half by the malformed fault: valid HTTP, broken JSON),
// with TGI's x-* timing headers. False (request finished) when the client is gone.
awaitable<bool> send_full_response(Generation& gen) {
  TraceRecord& tr = gen.x.tr;
  tr.status = 200;
  if (gen.x.api == ApiKind::llamacpp) gen.fm.set_timings(llamacpp_timings(tr));
  std::string body = gen.fm.full_response();
  if (gen.f.malformed_after) {
    body.resize(body.size() / 2);
    tr.error = "fault:malformed";
  }
  std::string headers;
  if (gen.tgi) {
    const int64_t sent = gen.sent;
    double queue_ms = tr.admission_ns >= 0 ? (tr.admission_ns - tr.arrival_ns) / 1e6 : 0;
    tr.reply_ns = trace_now_ns();
    double total_ms = (tr.reply_ns - tr.arrival_ns) / 1e6;
    headers = fmt::format(
        "x-compute-type: gpu+optimized\r\nx-prompt-tokens: {}\r\nx-generated-tokens: {}\r\n"
        "x-queue-time: {}\r\nx-inference-time: {}\r\nx-total-time: {}\r\n"
        "x-time-per-token: {}\r\n",
        gen.g.prompt_tokens, sent, std::llround(queue_ms), std::llround(total_ms - queue_ms),
        std::llround(total_ms), sent ? std::llround((total_ms - queue_ms) / sent) : 0);
  }
  if (!co_await write_all(gen.x.sock,
                          http_response(200, "application/json", body, gen.x.keep, headers))) {
    tr.error = "client_gone";
    gen.x.ctx.finish(tr);
    co_return false;
  }
  co_return true;
}

// Streams each token as the engine produces it (or, non-streaming, notes it and then
// writes the whole body), applying the cut, stall and malformed faults. Finishes the
// request; true when the connection may go on.
awaitable<bool> respond(Generation& gen) {
  Exchange& x = gen.x;
  const Faults& f = gen.f;
  if (gen.g.stream) {
    x.tr.status = 200;
    const std::string headers(gen.tgi ? kTgiSseHeaders : kOpenAiSseHeaders);
    if (!co_await write_all(x.sock, headers)) co_return drop(gen, false, "client_gone");
  }
  // Tokens between the first and the last need no decision of the loop below when no fault
  // can strike mid-stream: the mailbox's fast path sends them.
  const FastPathGuard guard{gen.stream};
  if (gen.g.stream && !f.reset_after && !f.disconnect_after && !f.malformed_after &&
      f.stall_ms == 0)
    gen.stream.set_fast_path([&gen](const MailItem& it) { return send_token_now(gen, it); });
  for (;;) {
    if (const Cut cut = cut_after(f, gen.sent); cut != Cut::none)
      co_return drop(gen, cut == Cut::reset,
                     cut == Cut::reset ? "fault:reset" : "fault:disconnect");
    Item it = co_await gen.stream.next();
    if (it.tail) {  // a token the fast path sent in part (never the last)
      const int64_t t = gen.tail_t >= 0 ? gen.tail_t : trace_now_ns();
      if (!co_await write_all(x.sock, gen.tail)) co_return drop(gen, false, "client_gone");
      note_sent(gen, t);
      continue;
    }
    const SchedEvent& e = it.event;
    if (e.kind == SchedEvent::Kind::admitted) {
      x.tr.admission_ns = trace_ns(e.time);
      x.tr.cached_tokens = e.cached_tokens;
      // vLLM with prefix caching reports the hits in usage.prompt_tokens_details.
      if (x.ctx.cfg.sched.prefix_caching) gen.fm.set_cached_tokens(e.cached_tokens);
      continue;
    }
    if (f.stall_ms > 0 && !gen.stalled && gen.sent >= f.stall_after) {
      gen.stalled = true;
      co_await sleep_ms(f.stall_ms);
    }
    note_due(gen, e);
    // Ground truth: the instant the token's bytes are handed to the socket. Asio
    // sends at once when the socket can take them; the completion is only the
    // event loop's acknowledgement, which may come after the client has read them.
    const int64_t t = trace_now_ns();
    if (gen.g.stream) {
      if (!co_await write_all(x.sock, token_chunk(gen, e))) {
        if (!e.last) co_return drop(gen, false, "client_gone");
        x.tr.error = "client_gone";
        x.ctx.finish(x.tr);
        co_return false;
      }
    }
    note_sent(gen, t);
    if (e.last) break;
    if (gen.g.stream && f.malformed_after && *f.malformed_after == gen.sent)
      if (!co_await send_malformed(gen)) co_return false;
  }
  if (!gen.g.stream)
    if (!co_await send_full_response(gen)) co_return false;
  x.ctx.finish(x.tr);
  co_return x.keep;
}

}  // namespace

awaitable<bool> serve_generate(const GenerateContext& ctx, tcp::socket& sock, const Request& req,
                               ApiKind api) {
  Exchange x{ctx, sock, begin_trace(ctx, req, api), api, req.keep_alive()};
  // Anthropic's API refuses a request that names no API version (docs.anthropic.com,
  // Versions): so does the simulator, which shows that a client sends it.
  if (api == ApiKind::anthropic && req.find("anthropic-version") == req.end())
    co_return co_await reject(x, 400, "anthropic-version: header is required", "validation");
  Faults f;
  if (auto it = req.find("x-sim-fault"); it != req.end()) {
    x.tr.fault = std::string(it->value());
    if (auto err = parse_fault_header(it->value(), f))
      co_return co_await reject(x, is_tgi(api) ? 422 : 400, *err, "validation");
  }
  auto parsed = parse_generate(api, req.body(), ctx.cfg);
  if (auto* e = std::get_if<HttpError>(&parsed)) co_return co_await reject_invalid(x, *e);
  GenRequest g = std::get<GenRequest>(std::move(parsed));
  if (auto it = req.find(kPriorityValueHeader); it != req.end() && !g.priority) {
    g.priority = parse_priority_value(it->value());
    if (!g.priority)
      co_return co_await reject(x, is_tgi(api) ? 422 : 400,
                                "x-priority-value: header must be an integer", "validation");
  }
  note_request(x.tr, g);
  roll_dice(ctx.dice, g.output_tokens, f, x.tr);
  if (f.never_respond) co_return co_await never_respond(x);
  if (f.slow_first_byte_ms > 0) co_await sleep_ms(f.slow_first_byte_ms);
  if (f.status)
    co_return co_await reject(x, f.status, fmt::format("simulated fault: status {}", f.status),
                              fmt::format("fault:status={}", f.status));

  const uint64_t id = x.tr.seq;
  auto stream = std::make_shared<Stream>(sock.get_executor());
  ctx.engine.submit(sched_request_of(id, g), stream);
  Item first = co_await stream->next();
  if (first.verdict != Admission::accepted)
    co_return co_await reject_unadmitted(x, g.stream, first.verdict);

  std::string resp_id = response_id(api, ctx.cfg.server.seed, id);
  int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  Generation gen{x, g, f, *stream, is_tgi(api), resp_id, Formatter(g, resp_id, created)};
  co_return co_await respond(gen);
}

}  // namespace sb::sim
