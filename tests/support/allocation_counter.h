#pragma once
// Counts the heap allocations of a test binary, for tests that a hot path allocates
// nothing once its buffers have grown. Include in exactly one source file per test
// binary: it replaces the global operator new and delete. Sanitizers bring their own
// operator new (and a shared library's allocations would then pair with ours), so
// under them SB_COUNT_ALLOCATIONS is 0, nothing is replaced, and the tests skip.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SB_COUNT_ALLOCATIONS 0
#else
#define SB_COUNT_ALLOCATIONS 1
#endif

namespace sb::testing {
inline std::atomic<uint64_t> g_allocations{0};
inline uint64_t allocations() {
  return g_allocations.load();
}
}  // namespace sb::testing

#if SB_COUNT_ALLOCATIONS
// g++ 12 flags malloc/free inside replaced global new/delete as mismatched once they
// are inlined into callers; the pairing is correct here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  ++sb::testing::g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop
#endif
