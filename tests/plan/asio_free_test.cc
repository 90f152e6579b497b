// The configuration layer stays free of the network stack (issue 14): the plain structs of a
// run and of a plan compile without Asio, so a config change recompiles no Beast-heavy unit
// and a parser or fuzz target needs no network code.
#include "config/engine_config.h"
#include "plan/plan.h"
#include "plan/providers.h"

#ifdef BOOST_ASIO_VERSION
#error "a configuration header includes Asio (see the include chain in the compiler's message)"
#endif

#include <gtest/gtest.h>

namespace sb {
namespace {

TEST(ConfigLayer, DefaultsAreTheDocumentedOnes) {
  const engine::EngineConfig e;
  EXPECT_EQ(e.timeouts.total, std::chrono::seconds(600));
  EXPECT_EQ(e.client.max_response_bytes, size_t{64} << 20);
  const plan::RunDefaults d;
  EXPECT_TRUE(d.flags.empty());  // prof's own defaults (cli/plan_defaults.h)
  EXPECT_DOUBLE_EQ(d.max_error_rate, 0.05);
}

}  // namespace
}  // namespace sb
