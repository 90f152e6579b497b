#pragma once
// The one header through which servebench includes Boost.Asio.
// Boost 1.74's boost/asio/awaitable.hpp uses std::exchange without including
// <utility>; with g++ 12 that fails unless <utility> comes first.
#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace sb {
namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
}  // namespace sb
