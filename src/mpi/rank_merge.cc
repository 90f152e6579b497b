#include "mpi/rank_merge.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "results/request_jsonl.h"
#include "results/request_log_read.h"
#include "results/run_outputs.h"
#include "results/summary_csv.h"
#include "results/summary_json.h"

namespace sb::mpi {
namespace {

using json = nlohmann::json;

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::optional<double> opt_from(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The per-rank block of summary.json: enough to spot the rank that is slow or failing.
json rank_json(const RankResult& r, const metrics::RunInfo& info) {
  json out = {{"rank", r.rank},
              {"host", r.host},
              {"name", r.name()},
              {"state", r.state},
              {"clock_offset_ms", static_cast<double>(r.clock_offset_ns) / 1e6},
              {"clock_uncertainty_ms", static_cast<double>(r.clock_uncertainty_ns) / 1e6},
              {"records", r.records.size()}};
  if (!r.error.empty()) out["error"] = r.error;
  if (r.interrupted) out["interrupted"] = true;
  const metrics::RunSummary s = metrics::summarize_run(r.records, info);
  out["requests"] = {{"total", s.requests.total},
                     {"ok", s.requests.ok},
                     {"failed", s.requests.failed},
                     {"warmup", s.requests.warmup}};
  out["throughput"] = {{"requests_per_s", opt(s.throughput.requests_per_s)},
                       {"output_tokens_per_s", opt(s.throughput.output_tokens_per_s)}};
  out["metrics"] = {
      {"ttft_ms", results::distribution_to_json(s.metrics.ttft_ms)},
      {"e2e_ms", results::distribution_to_json(s.metrics.e2e_ms)},
      {"dispatch_delay_ms", results::distribution_to_json(s.metrics.dispatch_delay_ms)}};
  out["load"] = {{"achieved_rate", opt(s.load.achieved_rate)}, {"late_sends", s.load.late_sends}};
  return out;
}

void write_merged_jsonl(const std::string& path, const std::vector<RankResult>& ranks) {
  struct Ref {
    uint64_t id;
    int rank;
    const metrics::RequestRecord* r;
  };
  std::vector<Ref> all;
  for (const auto& rr : ranks)
    for (const auto& rec : rr.records) all.push_back({rec.id, rr.rank, &rec});
  std::sort(all.begin(), all.end(), [](const Ref& a, const Ref& b) {
    return a.id != b.id ? a.id < b.id : a.rank < b.rank;
  });
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(fmt::format("cannot write {}", tmp));
  std::string buf;
  bool ok = true;
  for (const Ref& ref : all) {
    const size_t start = buf.size();
    results::append_request_jsonl(buf, *ref.r);
    // "...}\n" -> "...,"rank":R}\n"
    if (buf.size() >= start + 2 && buf[buf.size() - 2] == '}') {
      buf.resize(buf.size() - 2);
      fmt::format_to(std::back_inserter(buf), ",\"rank\":{}}}\n", ref.rank);
    }
    if (buf.size() > (size_t{4} << 20)) {
      ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
      buf.clear();
    }
  }
  ok = ok && std::fwrite(buf.data(), 1, buf.size(), f) == buf.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write {}", path));
  }
}

}  // namespace

std::string rank_dir(const std::string& dir, int rank) {
  return fmt::format("{}/rank-{}", dir, rank);
}

json run_info_to_json(const metrics::RunInfo& i) {
  return {{"tool_version", i.tool_version},
          {"config", i.config},
          {"host", i.host},
          {"started_at", i.started_at},
          {"duration_s", i.duration_s},
          {"interrupted", i.interrupted},
          {"load_mode", i.load_mode},
          {"concurrency", i.concurrency},
          {"target_rate", i.target_rate},
          {"max_concurrency", i.max_concurrency},
          {"slo",
           {{"ttft_ms", opt(i.slo.ttft_ms)},
            {"tpot_ms", opt(i.slo.tpot_ms)},
            {"e2e_ms", opt(i.slo.e2e_ms)}}},
          {"bucket_interval_ms", i.bucket_interval_ms},
          {"abandon_after_s", opt(i.abandon_after_s)}};
}

metrics::RunInfo run_info_from_json(const json& j) {
  metrics::RunInfo i;
  i.tool_version = j.value("tool_version", std::string(SERVEBENCH_VERSION));
  i.config = j.value("config", json::object());
  i.host = j.value("host", json::object());
  i.started_at = j.value("started_at", std::string());
  i.duration_s = j.value("duration_s", 0.0);
  i.interrupted = j.value("interrupted", false);
  i.load_mode = j.value("load_mode", std::string("closed"));
  i.concurrency = j.value("concurrency", 0);
  i.target_rate = j.value("target_rate", 0.0);
  i.max_concurrency = j.value("max_concurrency", 0);
  if (auto it = j.find("slo"); it != j.end() && it->is_object()) {
    i.slo.ttft_ms = opt_from(*it, "ttft_ms");
    i.slo.tpot_ms = opt_from(*it, "tpot_ms");
    i.slo.e2e_ms = opt_from(*it, "e2e_ms");
  }
  i.bucket_interval_ms = j.value("bucket_interval_ms", 1000.0);
  i.abandon_after_s = opt_from(j, "abandon_after_s");
  return i;
}

metrics::RunSummary write_merged_run(const std::string& dir, std::vector<RankResult>& ranks,
                                     metrics::RunInfo info) {
  std::vector<metrics::RequestRecord> all;
  size_t n = 0;
  for (const auto& r : ranks) n += r.records.size();
  all.reserve(n);
  int64_t last_end_ns = 0;
  std::vector<std::string> missing;
  for (auto& r : ranks) {
    for (const auto& rec : r.records) {
      all.push_back(rec);
      if (rec.t_end_ns != metrics::kNoTime) last_end_ns = std::max(last_end_ns, rec.t_end_ns);
    }
    info.interrupted = info.interrupted || r.interrupted;
    if (r.state != "done") missing.push_back(r.name());
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  info.duration_s = std::max(info.duration_s, static_cast<double>(last_end_ns) / 1e9);

  write_merged_jsonl(dir + "/requests.jsonl", ranks);
  const metrics::RunSummary summary = metrics::summarize_run(all, info);
  json out = results::summary_to_json(summary, info);
  out["run"]["incomplete"] = !missing.empty();
  out["run"]["missing_ranks"] = missing;
  json per_rank = json::array();
  for (const auto& r : ranks) per_rank.push_back(rank_json(r, info));
  out["distributed"] = {
      {"ranks_total", ranks.size()},
      {"ranks_done", ranks.size() - missing.size()},
      {"clock",
       "every rank's times count from one instant agreed against rank 0's steady clock "
       "(ping-pong offsets below); timeseries are on that common clock"},
      {"ranks", per_rank}};
  results::write_file_atomically(dir + "/summary.json",
                                 out.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
  results::write_file_atomically(dir + "/summary.csv",
                                 results::summary_csv_header() + results::summary_csv_row(summary));
  return summary;
}

std::vector<metrics::RequestRecord> read_rank_records(const std::string& path, int64_t* skipped) {
  if (!std::filesystem::exists(path)) return {};  // a rank that wrote nothing
  results::RequestLogContents c = results::read_request_log(path);
  if (skipped) *skipped += c.skipped_lines;
  return std::move(c.records);
}

MergeReport merge_rank_folders(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string manifest_path = dir + "/mpi.json";
  std::ifstream in(manifest_path);
  if (!in)
    throw usage_error(fmt::format(
        "merge: cannot read {} (is '{}' the output folder of an mpirun servebench run?)",
        manifest_path, dir));
  const json manifest = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || !manifest.contains("ranks"))
    throw usage_error(fmt::format("merge: {} is not a servebench mpi.json", manifest_path));
  MergeReport rep;
  std::vector<RankResult> ranks;
  for (const json& m : manifest["ranks"]) {
    RankResult r;
    r.rank = m.value("rank", 0);
    r.host = m.value("host", std::string("?"));
    r.clock_offset_ns = m.value("clock_offset_ns", int64_t{0});
    r.clock_uncertainty_ns = m.value("clock_uncertainty_ns", int64_t{0});
    const std::string rd = rank_dir(dir, r.rank);
    if (std::ifstream s(rd + "/rank.json"); s) {
      const json state = json::parse(s, nullptr, false);
      if (state.is_object()) {
        const std::string st = state.value("state", std::string("running"));
        // "running" left behind: the rank never finished (killed, or its job aborted).
        r.state = st == "running" ? "died" : st;
        r.error = state.value("error", std::string());
        r.interrupted = state.value("interrupted", false);
        if (r.state == "died" && r.error.empty())
          r.error = "the rank stopped before finishing (killed, or its job was aborted)";
      }
    } else {
      r.error = fmt::format("no {}/rank.json (rank folder not copied here?)", rd);
    }
    r.records = read_rank_records(rd + "/requests.jsonl", &rep.skipped_lines);
    if (r.state != "done") rep.missing.push_back(r.name());
    ranks.push_back(std::move(r));
  }
  metrics::RunInfo info = run_info_from_json(manifest.value("run_info", json::object()));
  info.config["merged_from"] = "rank folders";
  rep.summary = write_merged_run(dir, ranks, info);
  return rep;
}

}  // namespace sb::mpi
