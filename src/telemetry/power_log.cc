#include "telemetry/power_log.h"

#include <string.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sb::telemetry {

namespace {

using SeriesMap = std::map<std::string, metrics::PowerSeries>;

// The starts of the lines of `text` that hold `marker`, appended to `starts`.
void lines_with(std::string_view text, std::string_view marker, std::vector<size_t>& starts) {
  for (size_t at = 0; at < text.size();) {
    const void* hit = ::memmem(text.data() + at, text.size() - at, marker.data(), marker.size());
    if (!hit) return;
    const size_t pos = static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    const size_t before = text.rfind('\n', pos);
    starts.push_back(before == std::string_view::npos ? 0 : before + 1);
    const size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) return;
    at = end + 1;
  }
}

void add_line(std::string_view line, SeriesMap& gpu, SeriesMap& gauge) {
  const auto j = nlohmann::json::parse(line.begin(), line.end(), nullptr,
                                       /*allow_exceptions=*/false);
  if (!j.is_object()) return;
  const auto t = j.find("t_s"), v = j.find("value"), key = j.find("key");
  const auto source = j.find("source"), name = j.find("name");
  if (t == j.end() || !t->is_number() || v == j.end() || !v->is_number() || key == j.end() ||
      !key->is_string() || source == j.end() || !source->is_string() || name == j.end() ||
      !name->is_string())
    return;
  const std::string src = source->get<std::string>(), n = name->get<std::string>();
  SeriesMap* into = src == "gpu" && n == "power_w"   ? &gpu
                    : n == "DCGM_FI_DEV_POWER_USAGE" ? &gauge
                                                     : nullptr;
  if (!into) return;
  metrics::PowerSeries& s = (*into)[key->get<std::string>()];
  s.name = key->get<std::string>();
  s.points.emplace_back(std::llround(t->get<double>() * 1e9), v->get<double>());
}

// The power lines among whole lines `text`, in order. Most lines are other series: the two
// markers are searched over the whole text (memmem) and only the lines holding one are parsed.
void add_lines(std::string_view text, SeriesMap& gpu, SeriesMap& gauge) {
  std::vector<size_t> starts;
  lines_with(text, "\"power_w\"", starts);
  lines_with(text, "DCGM_FI_DEV_POWER_USAGE", starts);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  for (const size_t start : starts) {
    const size_t end = text.find('\n', start);
    add_line(
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start),
        gpu, gauge);
  }
}

}  // namespace

PowerLog read_power_log(const std::string& path, size_t block_bytes) {
  std::ifstream in(path, std::ios::binary);
  SeriesMap gpu, gauge;
  const size_t block = std::max<size_t>(1, block_bytes);
  std::string buf;
  while (in) {
    const size_t had = buf.size();
    buf.resize(had + block);
    in.read(buf.data() + had, static_cast<std::streamsize>(block));
    buf.resize(had + static_cast<size_t>(in.gcount()));
    const size_t last = buf.rfind('\n');
    if (last == std::string::npos) continue;  // a line longer than a block: read on
    add_lines(std::string_view(buf).substr(0, last + 1), gpu, gauge);
    buf.erase(0, last + 1);
  }
  add_lines(buf, gpu, gauge);  // a last line without its line end
  PowerLog out;
  for (auto& [k, s] : gpu) out.gpu.push_back(std::move(s));
  for (auto& [k, s] : gauge) out.gauge.push_back(std::move(s));
  return out;
}

}  // namespace sb::telemetry
