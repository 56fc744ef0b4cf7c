#include "shaper/shaper-internal.h"

#include <math.h>

#define NS_PER_MS  1000000ull
#define NS_PER_SEC 1000000000ull

static uint64_t splitmix64(uint64_t *state) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

void shaper_plan_init(struct shaper_plan *p, uint64_t seed) {
        *p = (struct shaper_plan){ .rng = seed };
}

double shaper_plan_uniform(struct shaper_plan *p) {
        /* 53 random bits: every double in [0, 1) on a 2^-53 grid. */
        return (double)(splitmix64(&p->rng) >> 11) * 0x1.0p-53;
}

/* Box-Muller; 1 - u keeps the logarithm's argument in (0, 1]. */
static double standard_normal(struct shaper_plan *p) {
        double u = 1.0 - shaper_plan_uniform(p);
        double v = shaper_plan_uniform(p);
        return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

__extension__ typedef unsigned __int128 u128;

/* ns a packet of len bytes takes at rate_bps, rounded up. */
static uint64_t transmit_ns(uint64_t bytes, uint64_t rate_bps) {
        u128 bits = (u128)bytes * 8u * NS_PER_SEC;
        return (uint64_t)((bits + rate_bps - 1) / rate_bps);
}

/* GCRA (virtual scheduling) as a shaper: the packet's theoretical arrival time
 * advances by its transmission time; it may leave once that is at most the
 * burst's worth of time ahead of the clock. Shaping never drops, so the TAT
 * always advances. */
static uint64_t rate_due(
        struct shaper_plan *p, const struct shaper_config *c, uint64_t now_ns, uint32_t len) {
        if (c->rate_bps == 0)
                return now_ns;
        if (p->rate_bps != c->rate_bps) {
                p->rate_bps = c->rate_bps;
                p->tat_ns = 0;
        }
        uint32_t burst = c->burst_bytes ? c->burst_bytes : SHAPER_BURST_DEFAULT;
        uint64_t tau = transmit_ns(burst, c->rate_bps);
        p->tat_ns = MAX(p->tat_ns, now_ns) + transmit_ns(len, c->rate_bps);
        return p->tat_ns > now_ns + tau ? p->tat_ns - tau : now_ns;
}

/* delay_ms ± jitter in ns, cut at 0. */
static uint64_t jittered_ns(struct shaper_plan *p, const struct shaper_config *c) {
        double d = (double)c->delay_ms * (double)NS_PER_MS;
        double j = (double)c->jitter_ms * (double)NS_PER_MS;

        if (c->jitter_ms > 0) {
                if (c->jitter_dist == SHAPER_JITTER_NORMAL)
                        d += j * standard_normal(p);
                else
                        d += j * (2.0 * shaper_plan_uniform(p) - 1.0);
        }
        return d > 0 ? (uint64_t)d : 0;
}

uint64_t shaper_plan_due(
        struct shaper_plan *p, const struct shaper_config *c, uint64_t now_ns, uint32_t len,
        bool *ret_reordered) {
        uint64_t due = rate_due(p, c, now_ns, len);
        bool reordered = false;

        if (c->reorder_percent > 0)
                reordered = shaper_plan_uniform(p) * 100.0 < (double)c->reorder_percent;
        due += jittered_ns(p, c);
        if (c->reorder_percent > 0 && !reordered)
                due += (uint64_t)c->reorder_delay_ms * NS_PER_MS;
        if (ret_reordered)
                *ret_reordered = reordered;
        return due;
}
