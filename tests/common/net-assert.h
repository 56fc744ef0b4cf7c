#pragma once

/* cmocka assertions on network fault measurements, shared by the netns test
 * host (tests/priv) and the dockerd tests (tests/integration). Include after
 * <cmocka.h>. Tolerances are the issue's: delay within 10 % or 5 ms, counts
 * inside a 99 % binomial interval. */

#include <math.h>
#include <stdbool.h>

#include "common/netprobe.h"

/* measured minus baseline must be want ± max(5 ms, 10 %). */
static inline void assert_added_ms(double measured, double baseline, double want, const char *what) {
        double added = measured - baseline, tol = fmax(5.0, want * 0.10);
        print_message("%s: +%.1f ms (wanted +%.0f, tolerance %.1f)\n", what, added, want, tol);
        if (fabs(added - want) > tol)
                fail_msg("%s: added %.1f ms, wanted %.0f ± %.1f", what, added, want, tol);
}

/* Whether the count k of n lies within the 99 % binomial interval around p
 * (normal approximation, fine for n >= 1000). */
static inline bool in_binomial(unsigned k, unsigned n, double p, const char *what) {
        double lo, hi;
        binomial_interval_99(n, p, &lo, &hi);
        print_message(
                "%s: %u of %u (%.2f %%, 99 %% interval %.0f..%.0f)\n", what, k, n, 100.0 * k / n, lo, hi);
        return k >= lo && k <= hi;
}

/* A 99 % interval misses once in 100 samples by chance alone, and a run makes
 * dozens of these checks: a miss is measured again (count is evaluated anew),
 * and the case fails only when the second, independent sample misses too. */
#define ASSERT_BINOMIAL(count, n, p, what)                                                                  \
        do {                                                                                                \
                if (!in_binomial((count), (n), (p), (what)) && !in_binomial((count), (n), (p), (what)))     \
                        fail_msg("%s: two samples outside the 99 %% interval", (what));                     \
        } while (0)
