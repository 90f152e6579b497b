#pragma once
// FUZZ_CHECK(cond): a property a fuzz target asserts. On failure it prints the
// condition and aborts, which libFuzzer reports as a crash (and saves the input)
// and which fails the corpus replay test.
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
