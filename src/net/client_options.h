#pragma once
// What a client needs to reach one server: plain values, no Asio (net/connection.h builds
// the connection from them), so that configuration headers stay free of the network stack.
#include <cstddef>
#include <string>

#include "net/url.h"

namespace sb::net {

struct ClientOptions {
  Url url;
  bool insecure = false;     // skip certificate verification (--insecure)
  std::string ca_file;       // extra CA bundle (--ca-file)
  size_t max_response_bytes = size_t{64} << 20;
};

}  // namespace sb::net
