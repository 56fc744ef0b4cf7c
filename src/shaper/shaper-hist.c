#include "shaper/shaper-internal.h"

#include <math.h>

#define SUB_BITS 6u  /* log2(SHAPER_HIST_SUB) */
#define LIN_BITS 10u /* log2(SHAPER_HIST_LINEAR) */

_Static_assert(SHAPER_HIST_SUB == 1u << SUB_BITS, "sub-buckets per power of two");
_Static_assert(SHAPER_HIST_LINEAR == 1u << LIN_BITS, "linear range");

static size_t bucket_of(uint64_t us) {
        if (us < SHAPER_HIST_LINEAR)
                return (size_t)us;
        unsigned pow = 63u - (unsigned)__builtin_clzll(us);
        size_t sub = (size_t)(us >> (pow - SUB_BITS)) & (SHAPER_HIST_SUB - 1);
        return SHAPER_HIST_LINEAR + (size_t)(pow - LIN_BITS) * SHAPER_HIST_SUB + sub;
}

static uint64_t bucket_floor(size_t i) {
        if (i < SHAPER_HIST_LINEAR)
                return i;
        size_t k = i - SHAPER_HIST_LINEAR;
        unsigned pow = (unsigned)(k / SHAPER_HIST_SUB) + LIN_BITS;
        uint64_t sub = k % SHAPER_HIST_SUB;
        return (SHAPER_HIST_SUB + sub) << (pow - SUB_BITS);
}

void shaper_hist_add(struct shaper_hist *h, uint64_t us) {
        h->count[bucket_of(us)]++;
        h->n++;
        h->max_us = MAX(h->max_us, us);
}

double shaper_hist_percentile(const struct shaper_hist *h, double p) {
        if (h->n == 0)
                return 0;
        p = p < 0 ? 0 : p > 100 ? 100 : p;
        /* The smallest value with at least p% of the samples at or below it. */
        uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->n);
        rank = MAX(rank, 1u);
        uint64_t seen = 0;
        for (size_t i = 0; i < SHAPER_HIST_BUCKETS; i++) {
                seen += h->count[i];
                if (seen >= rank)
                        return (double)bucket_floor(i);
        }
        return (double)h->max_us;
}
