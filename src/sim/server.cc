// The simulator's HTTP layer: listening, connections, routing, and the small GET
// endpoints. Beast parses requests; responses are written as raw bytes (http_bytes.h);
// generation requests are served by generate_handler.h.
#include "sim/server.h"

#include "sim/warning_pragmas.h"

#include <atomic>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "common/accept_backoff.h"
#include "common/beast.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/fd_limit.h"
#include "common/prom_page.h"
#include "sim/api.h"
#include "sim/engine.h"
#include "sim/fault.h"
#include "sim/generate_handler.h"
#include "sim/http_bytes.h"
#include "sim/metrics.h"
#include "sim/pooling_handler.h"
#include "sim/server_limits.h"
#include "sim/session_watchdog.h"

namespace sb::sim {
namespace {

using tcp = asio::ip::tcp;
using boost::system::error_code;
using Request = http::request<http::string_body>;

Nanos seconds(double s) {
  return std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(s));
}

// The API whose error body a request to `target` gets (Anthropic's on /v1/messages, the
// Responses API's on /v1/responses, else OpenAI under /v1, else TGI).
ApiKind error_api(std::string_view target) {
  target = target.substr(0, target.find('?'));
  if (target == "/v1/messages") return ApiKind::anthropic;
  if (target == "/v1/responses") return ApiKind::responses;
  return target.substr(0, 3) == "/v1" ? ApiKind::completions : ApiKind::tgi_generate;
}

// What the HTTP layer counts beside the engine's metrics (its /metrics, server_limits.h).
struct ConnectionCounters {
  std::atomic<int64_t> open{0};
  std::atomic<uint64_t> rejected{0};        // beyond the connection cap
  std::atomic<uint64_t> idle_closed{0};     // idle timeout
  std::atomic<uint64_t> read_timeouts{0};   // read timeout (answered 408)
  std::atomic<uint64_t> faults_ignored{0};  // x-sim-fault headers not allowed
  std::atomic<uint64_t> faults_refused{0};  // delays above the bound
  std::atomic<bool> ignored_logged{false};

  // Appends the HTTP layer's families to the simulator's page (after SimMetrics' own).
  void fill(PromPageFill& p) const {
    const auto d = [](const auto& a) { return static_cast<double>(a.load()); };
    const Labels none, idle{{"reason", "idle"}}, read{{"reason", "read"}},
        not_allowed{{"reason", "not_allowed"}}, too_long{{"reason", "delay_too_long"}};
    p.family("servebench_sim_connections_open", PromType::gauge, "Client connections open now.");
    p.sample("servebench_sim_connections_open", none, d(open));
    p.family("servebench_sim_connections_rejected_total", PromType::counter,
             "Connections answered 503 beyond --max-connections.");
    p.sample("servebench_sim_connections_rejected_total", none, d(rejected));
    p.family("servebench_sim_connections_timed_out_total", PromType::counter,
             "Connections closed by a timeout.");
    p.sample("servebench_sim_connections_timed_out_total", idle, d(idle_closed));
    p.sample("servebench_sim_connections_timed_out_total", read, d(read_timeouts));
    p.family("servebench_sim_fault_headers_ignored_total", PromType::counter,
             "x-sim-fault headers not honoured.");
    p.sample("servebench_sim_fault_headers_ignored_total", not_allowed, d(faults_ignored));
    p.sample("servebench_sim_fault_headers_ignored_total", too_long, d(faults_refused));
  }
};

// Counts a connection open for as long as its session runs.
struct OpenConnection {
  explicit OpenConnection(ConnectionCounters& c) : counters(c) { counters.open.fetch_add(1); }
  ~OpenConnection() { counters.open.fetch_sub(1); }
  OpenConnection(const OpenConnection&) = delete;
  OpenConnection& operator=(const OpenConnection&) = delete;
  ConnectionCounters& counters;
};

}  // namespace

struct Server::Impl {
  explicit Impl(SimConfig c) : cfg(std::move(c)) {}
  ~Impl() { stop(); }

  uint16_t start();
  void stop();
  awaitable<void> accept_loop();
  awaitable<void> session(tcp::socket sock);
  awaitable<bool> read_request(tcp::socket& sock, beast::flat_buffer& buf, SessionWatchdog& dog,
                               Request& req);
  awaitable<bool> gate_faults(tcp::socket& sock, Request& req, bool& answered, bool& never_respond);
  awaitable<void> reject_connection(tcp::socket sock);
  awaitable<bool> handle(tcp::socket& sock, const Request& req);
  // A generation (ApiKind) or, with `pooling`, an embeddings / rerank request.
  awaitable<bool> generate(tcp::socket& sock, const Request& req, ApiKind api,
                           std::optional<PoolingKind> pooling = std::nullopt);
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
  bool fault_headers = true;  // fault_headers_allowed(cfg.limits, cfg.server.host)
  int64_t max_connections = 0;
  ConnectionCounters counters;
  std::optional<fd::InProcessListener> registered;  // while running (prof --sim's budget)
  std::string info_json, models_json;
};

void Server::Impl::finish(TraceRecord& tr) {
  tr.end_ns = trace_now_ns();
  tr.output_tokens = static_cast<int64_t>(tr.token_ns.size());
  if (metrics) {
    bool ok = tr.status == 200 && tr.error.empty();
    double ttft = tr.first_token_ns >= 0 ? (tr.first_token_ns - tr.arrival_ns) / 1e9 : -1.0;
    metrics->observe_request(ok, (tr.end_ns - tr.arrival_ns) / 1e9, ttft, tr.prompt_tokens,
                             tr.output_tokens);
    if (ok && tr.admission_ns >= 0 && !tr.token_due_ns.empty())
      metrics->observe_phases((tr.admission_ns - tr.arrival_ns) / 1e9,
                              (tr.token_due_ns.front() - tr.admission_ns) / 1e9,
                              (tr.token_due_ns.back() - tr.token_due_ns.front()) / 1e9);
  }
  std::lock_guard lock(trace_mu);
  if (trace_file.is_open())
    trace_file << to_json_line(tr) << std::endl;  // a line per request, flushed
  if (cfg.server.trace_in_memory) records.push_back(std::move(tr));
}

awaitable<bool> Server::Impl::generate(tcp::socket& sock, const Request& req, ApiKind api,
                                       std::optional<PoolingKind> pooling) {
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
  const GenerateContext ctx{cfg, *engine, dice.get(), seq, [this](TraceRecord& tr) { finish(tr); }};
  if (pooling) co_return co_await serve_pooling(ctx, sock, req, *pooling);
  co_return co_await serve_generate(ctx, sock, req, api);
}

awaitable<bool> Server::Impl::handle(tcp::socket& sock, const Request& req) {
  std::string_view target = req.target();
  target = target.substr(0, target.find('?'));
  bool keep = req.keep_alive();
  struct Route {
    std::string_view path;
    http::verb verb;
    int kind;  // 0..6: ApiKind, 7 embeddings, 8 rerank, 10 health, 11 info, 12 models, 13 metrics
  };
  static constexpr Route kRoutes[] = {
      {"/generate", http::verb::post, 0},       {"/generate_stream", http::verb::post, 1},
      {"/v1/completions", http::verb::post, 2}, {"/v1/chat/completions", http::verb::post, 3},
      {"/health", http::verb::get, 10},         {"/info", http::verb::get, 11},
      {"/v1/models", http::verb::get, 12},      {"/metrics", http::verb::get, 13},
      {"/completion", http::verb::post, 4},     {"/v1/responses", http::verb::post, 5},
      {"/v1/messages", http::verb::post, 6},    {"/v1/embeddings", http::verb::post, 7},
      {"/v1/rerank", http::verb::post, 8},      {"/rerank", http::verb::post, 8},
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
      case 4:
        co_return co_await generate(sock, req, ApiKind::llamacpp);
      case 5:
        co_return co_await generate(sock, req, ApiKind::responses);
      case 6:
        co_return co_await generate(sock, req, ApiKind::anthropic);
      case 7:
        co_return co_await generate(sock, req, ApiKind::completions, PoolingKind::embeddings);
      case 8:
        co_return co_await generate(sock, req, ApiKind::completions, PoolingKind::rerank);
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
        PromPage page;
        {
          PromPageFill fill(page);
          metrics->fill_page(engine->stats(), Clock::now(), fill);
          counters.fill(fill);
        }
        const std::string body = prom_text_of(page);
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

// Reads the next request into `req`: waits at most the idle timeout for its first byte, then
// the read timeout for the whole of it. False when the session ends: the peer closed, a
// timeout passed (a request begun gets 408), or the request was answered 413/400 here.
awaitable<bool> Server::Impl::read_request(tcp::socket& sock, beast::flat_buffer& buf,
                                           SessionWatchdog& dog, Request& req) {
  error_code ec;
  if (buf.size() == 0) {  // idle until the next request's first byte
    dog.arm(seconds(cfg.limits.idle_timeout_s));
    co_await sock.async_wait(tcp::socket::wait_read, asio::redirect_error(use_awaitable, ec));
    if (dog.fired()) counters.idle_closed.fetch_add(1);
    if (ec || dog.fired()) co_return false;
  }
  dog.arm(seconds(cfg.limits.read_timeout_s));
  http::request_parser<http::string_body> parser;
  parser.body_limit(cfg.server.max_body_bytes);
  parser.header_limit(64 * 1024);
  co_await http::async_read_header(sock, buf, parser, asio::redirect_error(use_awaitable, ec));
  if (!ec && !parser.is_done()) {
    // curl sends "Expect: 100-continue" before large bodies and waits for this.
    if (beast::iequals(parser.get()[http::field::expect], "100-continue"))
      co_await write_all(sock, "HTTP/1.1 100 Continue\r\n\r\n");
    co_await http::async_read(sock, buf, parser, asio::redirect_error(use_awaitable, ec));
  }
  if (dog.fired()) {
    counters.read_timeouts.fetch_add(1);
    dog.arm(std::chrono::seconds(1));  // a client that reads nothing cannot hold the 408
    co_await write_all(sock, http_response(408, "text/plain", "Request Timeout", false));
    co_return false;
  }
  dog.disarm();
  if (ec == http::error::body_limit) {
    std::string msg =
        fmt::format("Payload too large: the body exceeds {} bytes", cfg.server.max_body_bytes);
    const ApiKind api = error_api(parser.get().target());
    co_await write_all(sock,
                       http_response(413, "application/json", error_body(api, 413, msg), false));
    co_return false;
  }
  if (ec == http::error::end_of_stream || ec == asio::error::eof ||
      ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
      ec == asio::error::bad_descriptor)
    co_return false;
  if (ec) {
    co_await write_all(sock, http_response(400, "text/plain", "Bad Request", false));
    co_return false;
  }
  req = parser.release();
  co_return true;
}

// The x-sim-fault policy (server_limits.h): a header not allowed is dropped (counted, said
// once on stderr), a delay above the bound is answered 422 (TGI) / 400 (OpenAI) here
// (`answered`; the result is then whether the connection goes on). `never_respond`: the
// request asks for it, which the session bounds.
awaitable<bool> Server::Impl::gate_faults(tcp::socket& sock, Request& req, bool& answered,
                                          bool& never_respond) {
  answered = never_respond = false;
  const auto it = req.find("x-sim-fault");
  if (it == req.end()) co_return true;
  if (!fault_headers) {
    counters.faults_ignored.fetch_add(1);
    if (!counters.ignored_logged.exchange(true))
      fmt::print(stderr,
                 "servebench sim: ignoring x-sim-fault headers: the server listens on {}, not "
                 "a loopback address (--allow-fault-headers honours them); said once\n",
                 cfg.server.host);
    req.erase(it);
    co_return true;
  }
  if (auto why = fault_delay_problem(it->value(), cfg.limits.max_fault_delay_ms)) {
    counters.faults_refused.fetch_add(1);
    answered = true;
    const ApiKind api = error_api(req.target());
    const int status = api == ApiKind::tgi_generate ? 422 : 400;
    co_return co_await write_all(
        sock, http_response(status, "application/json", error_body(api, status, *why),
                            req.keep_alive())) &&
        req.keep_alive();
  }
  never_respond = asks_never_respond(it->value());
  co_return true;
}

awaitable<void> Server::Impl::session(tcp::socket sock) {
  const OpenConnection counted(counters);
  SessionWatchdog dog(sock);
  beast::flat_buffer buf;
  for (;;) {
    Request req;
    if (!co_await read_request(sock, buf, dog, req)) break;
    bool answered = false, never_respond = false;
    bool keep = co_await gate_faults(sock, req, answered, never_respond);
    if (!answered) {
      // never_respond holds its connection max_fault_delay_ms at most.
      if (never_respond)
        dog.arm(std::chrono::milliseconds(std::max<int64_t>(1, cfg.limits.max_fault_delay_ms)));
      try {
        keep = co_await handle(sock, req);
      } catch (const std::exception&) {
        keep = false;  // never crash the server because of one request
      }
      dog.disarm();
    }
    if (!keep || dog.fired()) break;
  }
  error_code ec;
  sock.shutdown(tcp::socket::shutdown_send, ec);
  sock.close(ec);
}

// Beyond the connection cap: 503 and close, at once.
awaitable<void> Server::Impl::reject_connection(tcp::socket sock) {
  SessionWatchdog dog(sock);
  dog.arm(std::chrono::seconds(1));
  co_await write_all(
      sock, http_response(503, "text/plain", "Service Unavailable: too many connections", false,
                          "retry-after: 1\r\n"));
  error_code ec;
  sock.shutdown(tcp::socket::shutdown_send, ec);
  sock.close(ec);
}

// Out of descriptors the listener stays readable: wait before the next try (never spin).
awaitable<void> Server::Impl::accept_loop() {
  AcceptBackoff backoff(fmt::format("servebench sim on {}:{}", cfg.server.host, port));
  size_t next = 0;
  for (;;) {
    auto& ctx = *ctxs[next++ % ctxs.size()];
    tcp::socket sock(ctx);
    error_code ec;
    co_await acceptor->async_accept(sock, asio::redirect_error(use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor->is_open()) co_return;
      co_await sleep_ms(backoff.after_error(ec).count());
      continue;
    }
    sock.set_option(tcp::no_delay(true), ec);
    if (counters.open.load() >= max_connections) {
      counters.rejected.fetch_add(1);
      asio::co_spawn(ctx, reject_connection(std::move(sock)), asio::detached);
      continue;
    }
    asio::co_spawn(ctx, session(std::move(sock)), asio::detached);
  }
}

uint16_t Server::Impl::start() {
  if (running) return port;
  validate(cfg);
  validate(cfg.limits);
  fault_headers = fault_headers_allowed(cfg.limits, cfg.server.host);
  max_connections = effective_max_connections(cfg.limits, fd::descriptor_limit().soft);
  if (!dice) dice = std::make_unique<FaultDice>(cfg.faults, cfg.server.seed);
  metrics = std::make_unique<SimMetrics>(cfg);
  for (int i = 0; i < cfg.server.threads; ++i)
    ctxs.push_back(std::make_unique<asio::io_context>(1));
  engine = std::make_unique<Engine>(cfg, cfg.server.threads == 1 ? ctxs[0].get() : nullptr);
  try {
    acceptor = std::make_unique<tcp::acceptor>(*ctxs[0]);
    error_code ec;
    auto addr =
        asio::ip::make_address(cfg.server.host == "localhost" ? "127.0.0.1" : cfg.server.host, ec);
    if (ec)
      throw Error(fmt::format("sim: --host '{}' is not an IP address", cfg.server.host),
                  ExitCode::usage);
    tcp::endpoint ep(addr, cfg.server.port);
    acceptor->open(ep.protocol());
    acceptor->set_option(tcp::acceptor::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen(asio::socket_base::max_listen_connections);
    port = acceptor->local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    acceptor.reset();
    engine.reset();  // its timer may live on ctxs[0]
    ctxs.clear();
    throw Error(fmt::format("sim: cannot listen on {}:{}: {}", cfg.server.host, cfg.server.port,
                            e.code().message()));
  }
  if (!cfg.server.trace_path.empty() && !trace_file.is_open()) {
    trace_file.open(cfg.server.trace_path, std::ios::out | std::ios::app);
    if (!trace_file)
      throw Error(fmt::format("sim: cannot write --trace file '{}'", cfg.server.trace_path),
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
      cfg.model.name, cfg.sched.queue_limit + cfg.sched.max_batch_size, cfg.sched.max_input_tokens,
      cfg.sched.max_total_tokens, cost.kv_capacity_tokens(), cfg.sched.max_batch_size,
      cfg.server.preset, to_string(cfg.sched.batching), cfg.server.time_scale);
  int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  models_json = fmt::format(
      R"({{"object":"list","data":[{{"id":"{0}","object":"model","created":{1},"owned_by":"vllm",)"
      R"("root":"{0}","parent":null,"max_model_len":{2},"permission":[]}}]}})",
      cfg.model.name, created, cfg.sched.max_total_tokens);
  engine->start();
  registered.emplace(cfg.server.host, port, cfg.server.threads + 1);  // + the engine's thread
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
  registered.reset();
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
  std::string host = impl_->cfg.server.host;
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
