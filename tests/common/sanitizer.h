#pragma once

/* Whether this test was built with AddressSanitizer (gcc defines
 * __SANITIZE_ADDRESS__, clang answers __has_feature). Under it the code runs
 * two to three times slower and every process carries the sanitizer's own
 * memory: a test whose point is a figure (a rate, a latency) judges it in
 * the plain build and checks only the effect's presence here. */

#include <stdbool.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAYHEM_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(MAYHEM_TEST_ASAN)
#define MAYHEM_TEST_ASAN 1
#endif

static inline bool under_sanitizer(void) {
#ifdef MAYHEM_TEST_ASAN
        return true;
#else
        return false;
#endif
}
