// The simulator's HTTP layer. Beast parses requests; responses are written as raw
// bytes (fixed-length bodies, or chunked SSE) so faults can cut them anywhere.
#include "sim/server.h"

// g++ 12 false positive on Asio's awaitable frame allocator (operator new/delete pair).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#if defined(__SANITIZE_ADDRESS__) && !defined(__clang__)
// Beast's basic_parser::do_field: a -Wmaybe-uninitialized false positive under ASan.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
// Asio's atomic_thread_fence: g++ warns that TSan does not model it (-Wtsan).
#pragma GCC diagnostic ignored "-Wtsan"
#endif

#include <atomic>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "common/beast.h"
#include "common/clock.h"
#include "common/error.h"
#include "sim/api.h"
#include "sim/engine.h"
#include "sim/fault.h"
#include "sim/metrics.h"

namespace sb::sim {
namespace {

using tcp = asio::ip::tcp;
using boost::system::error_code;
using Request = http::request<http::string_body>;

int64_t ns_of(TimePoint t) {
  return t.time_since_epoch().count();
}
int64_t ns_now() {
  return ns_of(Clock::now());
}

struct Item {
  bool admission = false;
  Admission verdict = Admission::accepted;
  SchedEvent event;
};

// One request's mailbox: the engine thread posts into it; the connection's
// coroutine (on the connection's executor) takes items out.
class Stream final : public EngineListener, public std::enable_shared_from_this<Stream> {
 public:
  explicit Stream(const asio::any_io_executor& ex) : ex_(ex), signal_(ex) {}
  void on_admission(Admission a) override { deliver(Item{true, a, {}}); }
  void on_event(const SchedEvent& e) override { deliver(Item{false, Admission::accepted, e}); }

  awaitable<Item> next() {
    while (items_.empty()) {
      signal_.expires_at(TimePoint::max());
      error_code ec;
      co_await signal_.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    Item it = items_.front();
    items_.pop_front();
    co_return it;
  }

 private:
  void deliver(const Item& it) {
    asio::post(ex_, [self = shared_from_this(), it] {
      self->items_.push_back(it);
      self->signal_.cancel();
    });
  }
  asio::any_io_executor ex_;
  asio::steady_timer signal_;
  std::deque<Item> items_;
};

std::string http_response(int status, std::string_view content_type, std::string_view body,
                          bool keep_alive, std::string_view extra_headers = {}) {
  std::string ct =
      content_type.empty() ? std::string() : fmt::format("content-type: {}\r\n", content_type);
  return fmt::format("HTTP/1.1 {} {}\r\n{}content-length: {}\r\n{}{}\r\n{}", status,
                     http::obsolete_reason(static_cast<http::status>(status)), ct, body.size(),
                     extra_headers, keep_alive ? "" : "connection: close\r\n", body);
}

constexpr std::string_view kTgiSseHeaders =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    "x-accel-buffering: no\r\ntransfer-encoding: chunked\r\n\r\n";
constexpr std::string_view kOpenAiSseHeaders =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    "transfer-encoding: chunked\r\n\r\n";

// One HTTP/1.1 chunk carrying `data`, appended to `out`.
void append_chunk(std::string& out, std::string_view data) {
  fmt::format_to(std::back_inserter(out), "{:x}\r\n{}\r\n", data.size(), data);
}

std::string chunk(std::string_view data) {
  std::string out;
  append_chunk(out, data);
  return out;
}

awaitable<void> sleep_ms(int64_t ms) {
  asio::steady_timer t(co_await asio::this_coro::executor);
  t.expires_after(std::chrono::milliseconds(ms));
  error_code ec;
  co_await t.async_wait(asio::redirect_error(use_awaitable, ec));
}

awaitable<bool> write_all(tcp::socket& sock, const std::string& bytes) {
  error_code ec;
  co_await asio::async_write(sock, asio::buffer(bytes), asio::redirect_error(use_awaitable, ec));
  co_return !ec;
}

}  // namespace

struct Server::Impl {
  explicit Impl(SimConfig c) : cfg(std::move(c)) {}
  ~Impl() { stop(); }

  uint16_t start();
  void stop();
  awaitable<void> accept_loop();
  awaitable<void> session(tcp::socket sock);
  awaitable<bool> handle(tcp::socket& sock, const Request& req);
  awaitable<bool> generate(tcp::socket& sock, const Request& req, ApiKind api);
  awaitable<bool> reject(tcp::socket& sock, TraceRecord& tr, ApiKind api, int status,
                         std::string_view message, std::string error, bool keep);
  void finish(TraceRecord& tr);

  SimConfig cfg;
  std::unique_ptr<FaultDice> dice;
  std::atomic<uint64_t> seq{0};
  mutable std::mutex trace_mu;
  mutable std::condition_variable idle_cv;  // signalled when in_flight drops (under trace_mu)
  int64_t in_flight = 0;                    // generate handlers running (under trace_mu)
  std::vector<TraceRecord> records;
  std::ofstream trace_file;

  std::unique_ptr<Engine> engine;
  std::unique_ptr<SimMetrics> metrics;
  std::vector<std::unique_ptr<asio::io_context>> ctxs;
  std::vector<std::thread> threads;
  std::unique_ptr<tcp::acceptor> acceptor;
  uint16_t port = 0;
  bool running = false;
  std::string info_json, models_json;
};

void Server::Impl::finish(TraceRecord& tr) {
  tr.end_ns = ns_now();
  tr.output_tokens = static_cast<int64_t>(tr.token_ns.size());
  if (metrics) {
    bool ok = tr.status == 200 && tr.error.empty();
    double ttft = tr.first_token_ns >= 0 ? (tr.first_token_ns - tr.arrival_ns) / 1e9 : -1.0;
    metrics->observe_request(ok, (tr.end_ns - tr.arrival_ns) / 1e9, ttft, tr.prompt_tokens,
                             tr.output_tokens);
  }
  std::lock_guard lock(trace_mu);
  if (trace_file.is_open())
    trace_file << to_json_line(tr) << std::endl;  // a line per request, flushed
  if (cfg.trace_in_memory) records.push_back(std::move(tr));
}

awaitable<bool> Server::Impl::reject(tcp::socket& sock, TraceRecord& tr, ApiKind api, int status,
                                     std::string_view message, std::string error, bool keep) {
  tr.status = status;
  tr.error = std::move(error);
  std::string out =
      http_response(status, "application/json", error_body(api, status, message), keep);
  bool ok = co_await write_all(sock, out);
  finish(tr);
  co_return (ok && keep);
}

awaitable<bool> Server::Impl::generate(tcp::socket& sock, const Request& req, ApiKind api) {
  // Counts this handler as in flight until its frame is gone (finished or destroyed
  // by stop()), so wait_idle() can tell when the trace holds every request.
  struct InFlight {
    Impl& impl;
    explicit InFlight(Impl& i) : impl(i) {
      std::lock_guard lock(impl.trace_mu);
      ++impl.in_flight;
    }
    ~InFlight() {
      std::lock_guard lock(impl.trace_mu);
      --impl.in_flight;
      impl.idle_cv.notify_all();
    }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
  } in_flight_guard(*this);
  TraceRecord tr;
  tr.seq = ++seq;
  tr.arrival_ns = ns_now();
  tr.api = std::string(to_string(api));
  tr.stream = api == ApiKind::tgi_stream;
  bool keep = req.keep_alive();
  if (auto it = req.find("x-request-id"); it != req.end()) tr.request_id = std::string(it->value());
  Faults f;
  if (auto it = req.find("x-sim-fault"); it != req.end()) {
    tr.fault = std::string(it->value());
    if (auto err = parse_fault_header(it->value(), f))
      co_return co_await reject(sock, tr, api, is_tgi(api) ? 422 : 400, *err, "validation", keep);
  }
  auto parsed = parse_generate(api, req.body(), cfg);
  if (auto* e = std::get_if<HttpError>(&parsed)) {
    tr.status = e->in_stream ? 200 : e->status;
    tr.error = "validation";
    std::string out = e->in_stream
                          ? std::string(kTgiSseHeaders) +
                                chunk(Formatter::tgi_stream_error(e->message, "validation")) +
                                "0\r\n\r\n"
                          : http_response(e->status, "application/json", e->body, keep);
    bool ok = co_await write_all(sock, out);
    finish(tr);
    co_return (ok && keep);
  }
  GenRequest g = std::get<GenRequest>(std::move(parsed));
  tr.stream = g.stream;
  tr.prompt_tokens = g.prompt_tokens;
  tr.max_new_tokens = g.max_new_tokens;
  tr.token_ns.reserve(static_cast<size_t>(g.output_tokens));
  tr.token_due_ns.reserve(static_cast<size_t>(g.output_tokens));
  tr.batch_sizes.reserve(static_cast<size_t>(g.output_tokens));
  if (dice && !dice->empty()) {
    Faults d = dice->roll(g.output_tokens);
    if (d.any()) {
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
  }
  if (f.never_respond) {
    tr.error = "fault:never_respond";
    char byte;
    error_code ec;
    while (!ec)
      co_await sock.async_read_some(asio::buffer(&byte, 1),
                                    asio::redirect_error(use_awaitable, ec));
    finish(tr);
    co_return false;
  }
  if (f.slow_first_byte_ms > 0) co_await sleep_ms(f.slow_first_byte_ms);
  if (f.status)
    co_return co_await reject(sock, tr, api, f.status,
                              fmt::format("simulated fault: status {}", f.status),
                              fmt::format("fault:status={}", f.status), keep);

  uint64_t id = tr.seq;
  auto stream = std::make_shared<Stream>(sock.get_executor());
  engine->submit(SchedRequest{id, g.prompt_tokens, g.max_new_tokens, g.output_tokens}, stream);
  Item first = co_await stream->next();
  const bool tgi = is_tgi(api);
  const std::string_view sse_headers = tgi ? kTgiSseHeaders : kOpenAiSseHeaders;
  if (first.verdict != Admission::accepted) {
    bool queue_full = first.verdict == Admission::queue_full;
    std::string error = queue_full ? "queue_full" : "overloaded";
    if (tgi) {
      if (g.stream) {
        tr.status = 200;
        tr.error = error;
        std::string out(sse_headers);
        out += chunk(Formatter::tgi_stream_error("Model is overloaded", "overloaded"));
        out += "0\r\n\r\n";
        bool ok = co_await write_all(sock, out);
        finish(tr);
        co_return (ok && keep);
      }
      co_return co_await reject(sock, tr, api, 429, "Model is overloaded", error, keep);
    }
    if (queue_full)
      co_return co_await reject(sock, tr, api, 429, "The server is busy: the request queue is full",
                                error, keep);
    co_return co_await reject(
        sock, tr, api, 503, "The server is out of KV-cache capacity for this request", error, keep);
  }

  std::string resp_id =
      tgi ? std::string()
          : fmt::format("{}{:016x}{:016x}", api == ApiKind::chat ? "chatcmpl-" : "cmpl-", cfg.seed,
                        id);
  int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  Formatter fm(g, resp_id, created);
  auto drop = [&](bool rst, std::string why) {
    engine->cancel(id);
    error_code ec;
    if (rst)
      sock.set_option(tcp::socket::linger(true, 0), ec);
    else
      sock.shutdown(tcp::socket::shutdown_both, ec);
    sock.close(ec);
    tr.error = std::move(why);
  };
  if (g.stream) {
    tr.status = 200;
    if (!co_await write_all(sock, std::string(sse_headers))) {
      drop(false, "client_gone");
      finish(tr);
      co_return false;
    }
  }
  int64_t sent = 0;
  bool stalled = false;
  std::string event, out;
  for (;;) {
    if ((f.disconnect_after && *f.disconnect_after == sent) ||
        (f.reset_after && *f.reset_after == sent)) {
      bool rst = f.reset_after && *f.reset_after == sent;
      drop(rst, rst ? "fault:reset" : "fault:disconnect");
      finish(tr);
      co_return false;
    }
    Item it = co_await stream->next();
    const SchedEvent& e = it.event;
    if (e.kind == SchedEvent::Kind::admitted) {
      tr.admission_ns = ns_of(e.time);
      continue;
    }
    if (f.stall_ms > 0 && !stalled && sent >= f.stall_after) {
      stalled = true;
      co_await sleep_ms(f.stall_ms);
    }
    tr.token_due_ns.push_back(ns_of(e.time));
    tr.batch_sizes.push_back(e.batch_size);
    // Ground truth: the instant the token's bytes are handed to the socket. Asio
    // sends at once when the socket can take them; the completion is only the
    // event loop's acknowledgement, which may come after the client has read them.
    const int64_t t = ns_now();
    if (g.stream) {
      // One chunk per token, built in buffers kept across tokens.
      event.clear();
      if (e.index == 1) event += fm.stream_start();
      fm.append_token_event(event, e.index, e.last);
      if (e.last) event += fm.stream_end();
      out.clear();
      append_chunk(out, event);
      if (e.last) out += "0\r\n\r\n";
      if (!co_await write_all(sock, out)) {
        if (!e.last)
          drop(false, "client_gone");
        else
          tr.error = "client_gone";
        finish(tr);
        co_return false;
      }
    }
    if (sent == 0) tr.first_token_ns = t;
    tr.token_ns.push_back(t);
    ++sent;
    if (e.last) break;
    if (g.stream && f.malformed_after && *f.malformed_after == sent) {
      std::string bad =
          tgi ? "data:{\"index\":" : "data: {\"id\":\"" + resp_id + "\",\"choices\":[{\"text";
      bad += "\n\n";
      if (!co_await write_all(sock, chunk(bad))) {
        drop(false, "client_gone");
        finish(tr);
        co_return false;
      }
      if (tr.error.empty()) tr.error = "fault:malformed";
    }
  }
  if (!g.stream) {
    tr.status = 200;
    std::string body = fm.full_response();
    if (f.malformed_after) {  // non-streaming: a body cut in half (valid HTTP, broken JSON)
      body.resize(body.size() / 2);
      tr.error = "fault:malformed";
    }
    std::string headers;
    if (tgi) {
      double queue_ms = tr.admission_ns >= 0 ? (tr.admission_ns - tr.arrival_ns) / 1e6 : 0;
      double total_ms = (ns_now() - tr.arrival_ns) / 1e6;
      headers = fmt::format(
          "x-compute-type: gpu+optimized\r\nx-prompt-tokens: {}\r\nx-generated-tokens: {}\r\n"
          "x-queue-time: {}\r\nx-inference-time: {}\r\nx-total-time: {}\r\n"
          "x-time-per-token: {}\r\n",
          g.prompt_tokens, sent, std::llround(queue_ms), std::llround(total_ms - queue_ms),
          std::llround(total_ms), sent ? std::llround((total_ms - queue_ms) / sent) : 0);
    }
    if (!co_await write_all(sock, http_response(200, "application/json", body, keep, headers))) {
      tr.error = "client_gone";
      finish(tr);
      co_return false;
    }
  }
  finish(tr);
  co_return keep;
}

awaitable<bool> Server::Impl::handle(tcp::socket& sock, const Request& req) {
  std::string_view target = req.target();
  target = target.substr(0, target.find('?'));
  bool keep = req.keep_alive();
  struct Route {
    std::string_view path;
    http::verb verb;
    int kind;  // 0..3: ApiKind, 10 health, 11 info, 12 models, 13 metrics
  };
  static constexpr Route kRoutes[] = {
      {"/generate", http::verb::post, 0},       {"/generate_stream", http::verb::post, 1},
      {"/v1/completions", http::verb::post, 2}, {"/v1/chat/completions", http::verb::post, 3},
      {"/health", http::verb::get, 10},         {"/info", http::verb::get, 11},
      {"/v1/models", http::verb::get, 12},      {"/metrics", http::verb::get, 13},
  };
  const bool openai_path = target.substr(0, 3) == "/v1";
  for (const Route& r : kRoutes) {
    if (r.path != target) continue;
    if (req.method() != r.verb) {
      std::string out =
          http_response(405, openai_path ? "application/json" : "",
                        openai_path ? R"({"detail":"Method Not Allowed"})" : "", keep,
                        fmt::format("allow: {}\r\n", r.verb == http::verb::get ? "GET" : "POST"));
      co_return co_await write_all(sock, out) && keep;
    }
    switch (r.kind) {
      case 0:
        co_return co_await generate(sock, req, ApiKind::tgi_generate);
      case 1:
        co_return co_await generate(sock, req, ApiKind::tgi_stream);
      case 2:
        co_return co_await generate(sock, req, ApiKind::completions);
      case 3:
        co_return co_await generate(sock, req, ApiKind::chat);
      case 10:
        co_return co_await write_all(sock, http_response(200, "", "", keep)) && keep;
      case 11:
        co_return co_await write_all(sock,
                                     http_response(200, "application/json", info_json, keep)) &&
            keep;
      case 12:
        co_return co_await write_all(sock,
                                     http_response(200, "application/json", models_json, keep)) &&
            keep;
      case 13: {
        std::string body = metrics->render(engine->stats(), Clock::now());
        co_return co_await write_all(
            sock, http_response(200, "text/plain; version=0.0.4; charset=utf-8", body, keep)) &&
            keep;
      }
    }
  }
  std::string out = http_response(404, openai_path ? "application/json" : "",
                                  openai_path ? R"({"detail":"Not Found"})" : "", keep);
  co_return co_await write_all(sock, out) && keep;
}

awaitable<void> Server::Impl::session(tcp::socket sock) {
  beast::flat_buffer buf;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(cfg.max_body_bytes);
    parser.header_limit(64 * 1024);
    error_code ec;
    co_await http::async_read_header(sock, buf, parser, asio::redirect_error(use_awaitable, ec));
    if (!ec && !parser.is_done()) {
      // curl sends "Expect: 100-continue" before large bodies and waits for this.
      if (beast::iequals(parser.get()[http::field::expect], "100-continue"))
        co_await write_all(sock, "HTTP/1.1 100 Continue\r\n\r\n");
      co_await http::async_read(sock, buf, parser, asio::redirect_error(use_awaitable, ec));
    }
    if (ec == http::error::body_limit) {
      std::string msg =
          fmt::format("Payload too large: the body exceeds {} bytes", cfg.max_body_bytes);
      std::string_view t = parser.get().target();
      ApiKind api = t.substr(0, 3) == "/v1" ? ApiKind::completions : ApiKind::tgi_generate;
      co_await write_all(sock,
                         http_response(413, "application/json", error_body(api, 413, msg), false));
      break;
    }
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
        ec == asio::error::bad_descriptor)
      break;
    if (ec) {
      co_await write_all(sock, http_response(400, "text/plain", "Bad Request", false));
      break;
    }
    Request req = parser.release();
    bool keep = false;
    try {
      keep = co_await handle(sock, req);
    } catch (const std::exception&) {
      keep = false;  // never crash the server because of one request
    }
    if (!keep) break;
  }
  error_code ec;
  sock.shutdown(tcp::socket::shutdown_send, ec);
  sock.close(ec);
}

awaitable<void> Server::Impl::accept_loop() {
  size_t next = 0;
  for (;;) {
    auto& ctx = *ctxs[next++ % ctxs.size()];
    tcp::socket sock(ctx);
    error_code ec;
    co_await acceptor->async_accept(sock, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) co_return;
      co_await sleep_ms(5);  // e.g. out of file descriptors: back off
      continue;
    }
    sock.set_option(tcp::no_delay(true), ec);
    asio::co_spawn(ctx, session(std::move(sock)), asio::detached);
  }
}

uint16_t Server::Impl::start() {
  if (running) return port;
  validate(cfg);
  if (!dice) dice = std::make_unique<FaultDice>(cfg.fault_rates, cfg.seed);
  metrics = std::make_unique<SimMetrics>(cfg);
  for (int i = 0; i < cfg.threads; ++i) ctxs.push_back(std::make_unique<asio::io_context>(1));
  engine = std::make_unique<Engine>(cfg, cfg.threads == 1 ? ctxs[0].get() : nullptr);
  try {
    acceptor = std::make_unique<tcp::acceptor>(*ctxs[0]);
    error_code ec;
    auto addr = asio::ip::make_address(cfg.host == "localhost" ? "127.0.0.1" : cfg.host, ec);
    if (ec)
      throw Error(fmt::format("sim: --host '{}' is not an IP address", cfg.host), ExitCode::usage);
    tcp::endpoint ep(addr, cfg.port);
    acceptor->open(ep.protocol());
    acceptor->set_option(tcp::acceptor::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen(asio::socket_base::max_listen_connections);
    port = acceptor->local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    acceptor.reset();
    engine.reset();  // its timer may live on ctxs[0]
    ctxs.clear();
    throw Error(
        fmt::format("sim: cannot listen on {}:{}: {}", cfg.host, cfg.port, e.code().message()));
  }
  if (!cfg.trace_path.empty() && !trace_file.is_open()) {
    trace_file.open(cfg.trace_path, std::ios::out | std::ios::app);
    if (!trace_file)
      throw Error(fmt::format("sim: cannot write --trace file '{}'", cfg.trace_path),
                  ExitCode::usage);
  }
  CostModel cost(cfg);
  info_json = fmt::format(
      R"({{"model_id":"{}","model_sha":null,"model_dtype":"torch.float16","model_device_type":"cuda",)"
      R"("model_pipeline_tag":"text-generation","max_concurrent_requests":{},"max_best_of":2,)"
      R"("max_stop_sequences":4,"max_input_tokens":{},"max_total_tokens":{},"waiting_served_ratio":0.3,)"
      R"("max_batch_total_tokens":{},"max_waiting_tokens":20,"max_batch_size":{},"validation_workers":2,)"
      R"("max_client_batch_size":4,"router":"text-generation-router","version":"2.0.4","sha":null,)"
      R"("docker_label":null,"servebench_sim":{{"preset":"{}","batching":"{}","time_scale":{}}}}})",
      cfg.model_name, cfg.queue_limit + cfg.max_batch_size, cfg.max_input_tokens,
      cfg.max_total_tokens, cost.kv_capacity_tokens(), cfg.max_batch_size, cfg.preset,
      to_string(cfg.batching), cfg.time_scale);
  int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  models_json = fmt::format(
      R"({{"object":"list","data":[{{"id":"{0}","object":"model","created":{1},"owned_by":"vllm",)"
      R"("root":"{0}","parent":null,"max_model_len":{2},"permission":[]}}]}})",
      cfg.model_name, created, cfg.max_total_tokens);
  engine->start();
  asio::co_spawn(*ctxs[0], accept_loop(), asio::detached);
  for (auto& c : ctxs)
    threads.emplace_back([ctx = c.get()] {
      auto guard = asio::make_work_guard(*ctx);
      ctx->run();
    });
  running = true;
  return port;
}

void Server::Impl::stop() {
  if (!running) return;
  running = false;
  for (auto& c : ctxs) c->stop();
  for (auto& t : threads) t.join();
  threads.clear();
  engine->stop();
  engine.reset();  // drops listeners (their timers belong to ctxs: destroy first)
  acceptor.reset();
  ctxs.clear();
  std::lock_guard lock(trace_mu);
  if (trace_file.is_open()) trace_file.flush();
}

Server::Server(SimConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Server::~Server() = default;
uint16_t Server::start() {
  return impl_->start();
}
void Server::stop() {
  impl_->stop();
}
std::string Server::url() const {
  std::string host = impl_->cfg.host;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return fmt::format("http://{}:{}", host, impl_->port);
}
std::vector<TraceRecord> Server::trace() const {
  std::lock_guard lock(impl_->trace_mu);
  return impl_->records;
}
bool Server::wait_idle(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(impl_->trace_mu);
  return impl_->idle_cv.wait_for(lock, timeout, [&] { return impl_->in_flight == 0; });
}
const SimConfig& Server::config() const {
  return impl_->cfg;
}

}  // namespace sb::sim
