/* The maniac's PRNG and draws; the algorithm is written down in maniac.h
 * and docs/maniac.md, and must not change: a recorded seed replays only
 * while it holds. */

#include "maniac.h"

#include <errno.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x) {
        uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
        return (x << k) | (x >> (64 - k));
}

void maniac_rng_seed(struct maniac_rng *r, int64_t seed) {
        uint64_t x = (uint64_t)seed;
        for (size_t i = 0; i < 4; i++)
                r->s[i] = splitmix64(&x);
}

uint64_t maniac_rng_next(struct maniac_rng *r) {
        uint64_t *s = r->s;
        uint64_t result = rotl(s[1] * 5, 7) * 9;
        uint64_t t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
}

uint64_t maniac_rng_below(struct maniac_rng *r, uint64_t n) {
        /* 2^64 mod n, computed in 64 bits: (2^64 - n) mod n. */
        uint64_t rest = (0 - n) % n, x;
        do
                x = maniac_rng_next(r);
        while (x > UINT64_MAX - rest);
        return x % n;
}

/* The faults of the whole pool that apply to locus, in pool order. */
static size_t cross_pool(
        const struct maniac_pool *pool, const struct maniac_locus *locus, const struct maniac_fault **ret,
        size_t max) {
        size_t n = 0;
        for (size_t i = 0; i < pool->n_loci; i++)
                for (size_t j = 0; j < pool->loci[i].n_faults; j++)
                        if ((pool->loci[i].faults[j].def->node_kinds & locus->node_kinds) && n < max)
                                ret[n++] = &pool->loci[i].faults[j];
        return n;
}

static int64_t jitter(struct maniac_rng *rng, const struct fault_def *def, int64_t ms, unsigned level) {
        int64_t p = level >= 5 ? 200 : 100;
        int64_t j = (int64_t)maniac_rng_below(rng, (uint64_t)(2 * p + 1)) - p;
        int64_t d = ms * (1000 + j) / 1000, max = (int64_t)def->max_duration_s * 1000;
        if (max > 0 && d > max)
                d = max;
        return d < MANIAC_JITTER_MIN_MS ? MANIAC_JITTER_MIN_MS : d;
}

static size_t pool_size(const struct maniac_pool *pool) {
        size_t n = 0;
        for (size_t i = 0; i < pool->n_loci; i++)
                n += pool->loci[i].n_faults;
        return n;
}

int maniac_draw(
        const struct maniac_pool *pool, int64_t seed, unsigned level, unsigned steps,
        struct maniac_draw *ret, struct mh_error *reterr) {
        struct maniac_rng rng;
        size_t total = pool_size(pool);

        if (level < 1 || level > MANIAC_LEVEL_MAX)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage", "maniac level %u is not 1..%d", level,
                        MANIAC_LEVEL_MAX);
        if (steps < 1 || steps > MANIAC_STEPS_MAX)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage", "maniac steps %u is not 1..%d", steps,
                        MANIAC_STEPS_MAX);
        if (pool->n_loci == 0 || total == 0)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_empty_pool",
                        "nothing to draw from: no container with a fault");
        _cleanup_free_ const struct maniac_fault **cross = calloc(total, sizeof(*cross));
        if (!cross)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");

        maniac_rng_seed(&rng, seed);
        int64_t at = 0;
        for (unsigned i = 0; i < steps; i++) {
                const struct maniac_locus *l = &pool->loci[maniac_rng_below(&rng, pool->n_loci)];
                const struct maniac_fault *f = &l->faults[0];
                if (level == 2)
                        f = &l->faults[maniac_rng_below(&rng, l->n_faults)];
                else if (level >= 3) {
                        size_t n = cross_pool(pool, l, cross, total);
                        if (n == 0)
                                return mh_error_set(
                                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_empty_pool",
                                        "no fault of the pool applies to container '%s'", l->container);
                        f = cross[maniac_rng_below(&rng, n)];
                }
                int64_t ms = level >= 4 ? jitter(&rng, f->def, f->duration_ms, level) : f->duration_ms;
                ret[i] = (struct maniac_draw){ .seq = i + 1,
                                               .level = level,
                                               .seed = seed,
                                               .container = l->container,
                                               .def = f->def,
                                               .params_json = f->params_json,
                                               .duration_ms = ms,
                                               .at_ms = at };
                at += ms;
        }
        return 0;
}

json_t *maniac_draws_json(const struct maniac_draw *draws, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++) {
                const struct maniac_draw *d = &draws[i];
                json_t *params = json_loads(d->params_json ? d->params_json : "{}", 0, NULL);
                json_array_append_new(
                        a, json_pack(
                                   "{s:I, s:I, s:I, s:s, s:s, s:o, s:I, s:I}", "seq", (json_int_t)d->seq,
                                   "level", (json_int_t)d->level, "seed", (json_int_t)d->seed, "container",
                                   d->container, "fault_id", d->def->id, "params",
                                   params ? params : json_object(), "duration_ms",
                                   (json_int_t)d->duration_ms, "at_ms", (json_int_t)d->at_ms));
        }
        return a;
}
