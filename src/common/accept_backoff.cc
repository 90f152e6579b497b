#include "common/accept_backoff.h"

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

namespace sb {

bool is_descriptor_exhaustion(const boost::system::error_code& ec) {
  if (ec.category() != boost::system::system_category() &&
      ec.category() != boost::system::generic_category())
    return false;
  const int e = ec.value();
  return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

std::chrono::milliseconds AcceptBackoff::after_error(const boost::system::error_code& ec) {
  if (!is_descriptor_exhaustion(ec)) return kOtherDelay;
  if (!logged_) {
    logged_ = true;
    fmt::print(stderr,
               "{}: cannot accept a connection ({}); retrying every {} ms until descriptors "
               "free up (raise `ulimit -n`, or lower the load); said once\n",
               who_, ec.message(), kExhaustedDelay.count());
  }
  return kExhaustedDelay;
}

}  // namespace sb
