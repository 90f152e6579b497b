#include "sim/pooling_handler.h"

#include "sim/warning_pragmas.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "sim/engine.h"
#include "sim/engine_mailbox.h"
#include "sim/fault.h"
#include "sim/http_bytes.h"

namespace sb::sim {
namespace {

using tcp = asio::ip::tcp;

// Writes the response, records the request, and returns whether the connection may go on.
awaitable<bool> answer(const GenerateContext& ctx, tcp::socket& sock, TraceRecord& tr, int status,
                       const std::string& body, bool keep) {
  tr.status = status;
  const bool ok = co_await write_all(sock, http_response(status, "application/json", body, keep));
  if (status == 200) tr.first_token_ns = trace_now_ns();
  if (!ok && tr.error.empty()) tr.error = "client_gone";
  ctx.finish(tr);
  co_return ok&& keep;
}

awaitable<bool> refuse(const GenerateContext& ctx, tcp::socket& sock, TraceRecord& tr, int status,
                       std::string_view message, std::string error, bool keep) {
  tr.error = std::move(error);
  co_return co_await answer(ctx, sock, tr, status,
                            error_body(ApiKind::completions, status, message), keep);
}

}  // namespace

awaitable<bool> serve_pooling(const GenerateContext& ctx, tcp::socket& sock,
                              const http::request<http::string_body>& req, PoolingKind kind) {
  const bool keep = req.keep_alive();
  TraceRecord tr;
  tr.seq = ++ctx.seq;
  tr.arrival_ns = trace_now_ns();
  tr.api = kind == PoolingKind::embeddings ? "embeddings" : "rerank";
  if (auto it = req.find("x-request-id"); it != req.end()) tr.request_id = std::string(it->value());
  if (auto it = req.find("x-sim-fault"); it != req.end()) {
    tr.fault = std::string(it->value());
    Faults f;
    if (auto err = parse_fault_header(it->value(), f))
      co_return co_await refuse(ctx, sock, tr, 400, *err, "validation", keep);
    if (f.status)
      co_return co_await refuse(ctx, sock, tr, f.status,
                                fmt::format("simulated fault: status {}", f.status),
                                fmt::format("fault:status={}", f.status), keep);
  }
  auto parsed = parse_pooling(kind, req.body(), ctx.cfg);
  if (auto* e = std::get_if<HttpError>(&parsed)) {
    tr.error = "validation";
    co_return co_await answer(ctx, sock, tr, e->status, e->body, keep);
  }
  const PoolingRequest p = std::get<PoolingRequest>(std::move(parsed));
  if (p.tokens.size() > kMaxPoolingItems)
    co_return co_await refuse(ctx, sock, tr, 400,
                              fmt::format("at most {} inputs a request", kMaxPoolingItems),
                              "validation", keep);
  std::optional<int64_t> priority;
  if (auto it = req.find(kPriorityValueHeader); it != req.end()) {
    priority = parse_priority_value(it->value());
    if (!priority)
      co_return co_await refuse(ctx, sock, tr, 400, "x-priority-value: header must be an integer",
                                "validation", keep);
  }
  tr.prompt_tokens = p.total_tokens();

  // A continuous-batching server (TEI, vLLM, TGI) splits the request into one sequence per
  // item and batches them with everything else in flight: one encoder pass per item. A wrapper
  // without a batcher (pytorch, fastapi presets) runs the request's batch as one forward: one
  // pass of every item side by side. The passes' ids lie apart from the generations' seqs.
  const bool split = ctx.cfg.sched.batching == BatchPolicy::continuous;
  const size_t passes = split ? p.tokens.size() : 1;
  const uint64_t base = (uint64_t{1} << 63) | (tr.seq << 20);
  auto mailbox = std::make_shared<EngineMailbox>(sock.get_executor());
  for (size_t k = 0; k < passes; ++k) {
    SchedRequest r;
    r.id = base | k;
    r.prompt_tokens = split ? p.tokens[k] : p.total_tokens();
    r.sequences = split ? 1 : static_cast<int64_t>(p.tokens.size());
    r.output_tokens = 1;
    r.priority = priority.value_or(0);
    r.encode_only = true;
    ctx.engine.submit(r, mailbox);
  }
  size_t admitted = 0, refused = 0, done = 0;
  Admission verdict = Admission::accepted;
  while (admitted + refused < passes || (refused == 0 && done < passes)) {
    const MailItem it = co_await mailbox->next();
    if (it.admission) {
      if (it.verdict == Admission::accepted) {
        ++admitted;
      } else {
        ++refused;
        verdict = it.verdict;
      }
    } else if (it.event.kind == SchedEvent::Kind::admitted) {
      const int64_t t = trace_ns(it.event.time);
      tr.admission_ns = tr.admission_ns < 0 ? t : std::min(tr.admission_ns, t);
    } else if (it.event.last) {
      ++done;
    }
  }
  if (refused > 0) {  // the engine would not take every item: none is served
    for (size_t k = 0; k < passes; ++k) ctx.engine.cancel(base | k);
    const bool queue_full = verdict == Admission::queue_full;
    co_return co_await refuse(ctx, sock, tr, unadmitted_status(ApiKind::completions, queue_full),
                              queue_full ? "The server is busy: the request queue is full"
                                         : "The server is out of KV-cache capacity for this "
                                           "request",
                              queue_full ? "queue_full" : "overloaded", keep);
  }
  const std::string id = fmt::format("rerank-{:016x}{:016x}", ctx.cfg.server.seed, tr.seq);
  const std::string body = pooling_response(p, p.model.empty() ? ctx.cfg.model.name : p.model, id,
                                            ctx.cfg.model.hidden_size);
  tr.reply_ns = trace_now_ns();
  co_return co_await answer(ctx, sock, tr, 200, body, keep);
}

}  // namespace sb::sim
