#include "sim/trace.h"

#include <nlohmann/json.hpp>

namespace sb::sim {

std::string to_json_line(const TraceRecord& r) {
  nlohmann::ordered_json j;
  j["seq"] = r.seq;
  j["request_id"] = r.request_id;
  j["api"] = r.api;
  j["stream"] = r.stream;
  j["arrival_ns"] = r.arrival_ns;
  j["admission_ns"] = r.admission_ns;
  j["reply_ns"] = r.reply_ns;
  j["first_token_ns"] = r.first_token_ns;
  j["end_ns"] = r.end_ns;
  j["prompt_tokens"] = r.prompt_tokens;
  j["max_new_tokens"] = r.max_new_tokens;
  j["output_tokens"] = r.output_tokens;
  j["status"] = r.status;
  j["error"] = r.error;
  j["fault"] = r.fault;
  j["batch_sizes"] = r.batch_sizes;
  j["token_ns"] = r.token_ns;
  j["token_due_ns"] = r.token_due_ns;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sb::sim
