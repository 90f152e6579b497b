#include "predict/virtual_server.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.h"
#include "sim/sched_request_of.h"

namespace sb::predict {
namespace {

sim::SimConfig model_time(sim::SimConfig c) {
  c.server.time_scale = 1.0;
  return c;
}

// The refusal the live simulator sends for a verdict other than accepted
// (sim/generate_handler.cc, reject_unadmitted), as the client classifies it.
Rejection unadmitted(sim::ApiKind api, sim::Admission verdict) {
  const bool queue_full = verdict == sim::Admission::queue_full;
  if (api == sim::ApiKind::tgi_stream)  // HTTP 200, then an in-stream "overloaded" event
    return {200, ErrorClass::overloaded, "Model is overloaded"};
  const int status = sim::is_tgi(api) ? 429 : sim::unadmitted_status(api, queue_full);
  return {status, error_class_from_status(status),
          queue_full ? "the request queue is full" : "no KV-cache room for the request"};
}

}  // namespace

sim::ApiKind api_kind_of(const protocol::AdapterConfig& a) {
  switch (a.api) {
    case protocol::Api::tgi:
      return a.stream ? sim::ApiKind::tgi_stream : sim::ApiKind::tgi_generate;
    case protocol::Api::openai:
      return sim::ApiKind::completions;
    case protocol::Api::openai_chat:
      return sim::ApiKind::chat;
    case protocol::Api::llamacpp:
      return sim::ApiKind::llamacpp;
    case protocol::Api::openai_responses:
      return sim::ApiKind::responses;
    case protocol::Api::anthropic:
      return sim::ApiKind::anthropic;
    case protocol::Api::embeddings:
    case protocol::Api::rerank:
      throw usage_error(fmt::format(
          "predict: --api {} is not modelled in virtual time yet; run it against the live "
          "simulator (prof --sim ... --api {})",
          protocol::to_string(a.api), protocol::to_string(a.api)));
    case protocol::Api::generic:
      break;
  }
  throw usage_error(fmt::format("predict: --api generic has no simulator endpoint; use --api {}",
                                protocol::api_choices(false)));
}

VirtualServer::VirtualServer(const sim::SimConfig& config, sim::ApiKind api, TimePoint start)
    : config_(model_time(config)), api_(api), sched_(config_), metrics_(config_, start) {}

std::variant<sim::GenRequest, Rejection> VirtualServer::submit(
    uint64_t id, std::string_view body, TimePoint now, std::optional<int64_t> priority_header) {
  auto parsed = sim::parse_generate(api_, body, config_);
  if (const auto* e = std::get_if<sim::HttpError>(&parsed)) {
    const int status = e->in_stream ? 200 : e->status;
    return Rejection{status, ErrorClass::validation, e->message};
  }
  sim::GenRequest g = std::get<sim::GenRequest>(std::move(parsed));
  if (!g.priority) g.priority = priority_header;  // as the live server reads x-priority-value
  const sim::Admission verdict = sched_.submit(sim::sched_request_of(id, g), now);
  if (verdict != sim::Admission::accepted) return unadmitted(api_, verdict);
  return g;
}

Nanos VirtualServer::rejection_delay() const {
  return std::max<Nanos>(std::chrono::microseconds(100), sched_.cost().request_overhead());
}

}  // namespace sb::predict
