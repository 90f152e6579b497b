#pragma once
// The g++ 12 false positives of the simulator's Asio/Beast translation units, silenced from
// the include to the end of the including file (the warnings are raised where the templates
// are instantiated, after every declaration): include it near the top of a .cc file, right
// after its own header, never from a header.
//   -Wmismatched-new-delete: Asio's awaitable frame allocator (operator new/delete pair);
//   -Wmaybe-uninitialized under ASan: Beast's basic_parser::do_field;
//   -Wtsan under TSan: Asio's atomic_thread_fence, which TSan does not model.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#if defined(__SANITIZE_ADDRESS__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif
