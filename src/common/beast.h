#pragma once
// Boost.Beast HTTP on top of sb's Asio wrapper (see asio.h for the include-order trap).
// Beast-heavy translation units compile slowly: include this only where HTTP is spoken.
#include "common/asio.h"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace sb {
namespace beast = boost::beast;
namespace http = boost::beast::http;
}  // namespace sb
