// The live endpoint's gpu_energy_joules_total: each device's power samples integrated by the
// trapezoid rule from the first sample on.
#include <gtest/gtest.h>

#include "telemetry/live_metrics.h"

namespace sb::telemetry {
namespace {

using namespace std::chrono_literals;

std::vector<GpuReading> power(double w0, double w1) {
  std::vector<GpuReading> r(2);
  r[0].index = 0;
  r[0].power_w = w0;
  r[1].index = 1;
  r[1].power_w = w1;
  return r;
}

TEST(LiveEnergy, PowerSamplesIntegrateIntoACounter) {
  LiveMetrics m("p", "s");
  const TimePoint t0 = Clock::now();
  m.set_gpu(power(100, 50), t0);
  EXPECT_NE(m.render().find("gpu_energy_joules_total{device=\"0\"} 0\n"), std::string::npos);
  m.set_gpu(power(300, 50), t0 + 2s);        // (100 + 300) / 2 x 2 s = 400 J; 100 J
  m.set_gpu(power(300, kNoValue), t0 + 3s);  // + 300 J; a missing value adds nothing
  const std::string page = m.render();
  EXPECT_NE(page.find("# TYPE gpu_energy_joules_total counter\n"), std::string::npos);
  EXPECT_NE(page.find("gpu_energy_joules_total{device=\"0\"} 700\n"), std::string::npos) << page;
  EXPECT_NE(page.find("gpu_energy_joules_total{device=\"1\"} 100\n"), std::string::npos) << page;
}

}  // namespace
}  // namespace sb::telemetry
