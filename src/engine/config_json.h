#pragma once
// The effective configuration as JSON for summary.json, with secrets redacted (common/redact.h):
// the API key never appears, nor the values of headers that carry credentials (by name, or a
// "Bearer ..." value), nor --extra-body members with secret names, nor URL passwords and
// secret query values (base URL, endpoints, --endpoint).
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "config/engine_config.h"
#include "metrics/run_summary.h"

namespace sb::engine {

nlohmann::json config_to_json(const EngineConfig& config);
// Facts about the client host: hostname, kernel, cores, memory.
nlohmann::json host_facts();
// The run's facts for summary.json: version, redacted config (with workers_used and,
// when the run targeted the embedded simulator, sim_preset), host, timing, load and SLOs.
metrics::RunInfo run_info(const EngineConfig& config, const RunResult& result,
                          const std::string& sim_preset, const metrics::Slo& slo);

}  // namespace sb::engine
