#pragma once

/* `mayhem maniac`: random drills that replay exactly (docs/maniac.md).
 *
 * A pool of candidate faults, grouped by the container they may hit (from a
 * drill, or every container x the runnable catalog), and a seed give a list
 * of draws; the same pool, seed, level and step count give the same draws on
 * every machine and in every version that keeps this file's algorithm:
 *
 *   - the PRNG is xoshiro256** (Blackman and Vigna, 2018) whose four words
 *     are the first four outputs of splitmix64 started at the seed;
 *   - a number below n is the first output x of the PRNG, taken again while
 *     x >= 2^64 - (2^64 mod n) (rejection, no modulo bias);
 *   - each step draws, in this order: the container (below n_loci); at level
 *     1 its first fault, at level 2 one of its faults (below its count), at
 *     level 3 and up one of the faults of the whole pool that apply to that
 *     container's node kinds (below their count, in pool order); at level 4
 *     and 5 a jitter j below 2p+1 (p = 100 or 200 per mille), the duration
 *     becoming d * (1000 + j - p) / 1000 (integer ms, truncated), clamped to
 *     1 s .. the fault's catalog max_duration_s;
 *   - a draw's planned start (at_ms) is the sum of the durations before it.
 *
 * Nothing here does I/O: the CLI reads the files, records the draws
 * (evidence_maniac_draws_record) and runs them as a drill. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/arena.h"
#include "basic/error.h"
#include "catalog/catalog.h"
#include "drill/drill.h"
#include "topology/topology.h"

#define MANIAC_LEVEL_DEFAULT    2
#define MANIAC_LEVEL_MAX        5
#define MANIAC_STEPS_DEFAULT    10
#define MANIAC_STEPS_MAX        500
#define MANIAC_DURATION_DEFAULT 10000 /* ms: a synthesised fault's hold, the drill's default */
#define MANIAC_JITTER_MIN_MS    1000

struct maniac_rng {
        uint64_t s[4];
};

void maniac_rng_seed(struct maniac_rng *r, int64_t seed);
uint64_t maniac_rng_next(struct maniac_rng *r);
/* Uniform in [0, n); n must be > 0. */
uint64_t maniac_rng_below(struct maniac_rng *r, uint64_t n);

/* One fault a draw may pick: the catalog fault, the keys its drill entry
 * has besides `fault` and `duration` (its parameters as the drill spells
 * them, `targets`, `network_path`) as a JSON object text, and its hold. */
struct maniac_fault {
        const struct fault_def *def;
        const char *params_json;
        int64_t duration_ms;
};

struct maniac_locus {
        const char *container; /* the engine's container name */
        unsigned node_kinds;   /* NK_* bits it counts as */
        struct maniac_fault *faults;
        size_t n_faults;
};

struct maniac_pool {
        struct arena arena;
        struct maniac_locus *loci;
        size_t n_loci;
};

/* The drill's docker targets, grouped by the container each resolves to in
 * topo (first appearance order), each with its faults in the order written.
 * only (NULL: all) keeps one container. -ENOENT (exit 4) when nothing is
 * left to draw from. */
int maniac_pool_from_spec(
        const struct drill_spec *spec, const struct topology *topo, const char *only,
        struct maniac_pool **ret, struct mh_error *reterr);
/* Every container of topo x every catalog fault this build runs that applies
 * to a container and needs no parameter without a default, held
 * MANIAC_DURATION_DEFAULT (or its catalog maximum when shorter). */
int maniac_pool_from_catalog(
        const struct topology *topo, const char *only, struct maniac_pool **ret, struct mh_error *reterr);
struct maniac_pool *maniac_pool_free(struct maniac_pool *p);
DEFINE_FREEP(struct maniac_pool, maniac_pool_free)

/* The drill entry's other keys, as maniac_fault.params_json: given
 * parameters in the drill's spelling ("10s", "64k", "50%", "SIGKILL"),
 * peers as "targets", "network_path". malloc()ed; NULL when out of memory. */
char *maniac_fault_params_json(const struct drill_fault *f);

struct maniac_draw {
        unsigned seq; /* 1-based */
        unsigned level;
        int64_t seed;
        const char *container;
        const struct fault_def *def;
        const char *params_json; /* points into the pool (or the caller's storage on replay) */
        int64_t duration_ms;
        int64_t at_ms; /* planned start, from the start of the first draw */
};

/* steps draws (1..MANIAC_STEPS_MAX) at level (1..5) into ret[steps]. */
int maniac_draw(
        const struct maniac_pool *pool, int64_t seed, unsigned level, unsigned steps,
        struct maniac_draw *ret, struct mh_error *reterr);

/* The random drill that runs the draws: one target per draw (named
 * "m<seq>-<container>"), one sequential step per draw, a wait before a
 * draw whose at_ms is past the end of the one before it, config.timeout
 * long enough for all of them. Its config.maniac records level, steps and
 * seed; risk_ceiling and on_failure come from base (NULL: defaults).
 * Parse the text with drill_parse(): every validation applies. malloc()ed. */
int maniac_drill_text(
        const char *name, const struct drill_config *base, const struct maniac_draw *draws, size_t n,
        char **ret, struct mh_error *reterr);

/* The draws as a JSON array [{seq, level, seed, container, fault_id,
 * params, duration_ms, at_ms}], for --json and dry runs. */
json_t *maniac_draws_json(const struct maniac_draw *draws, size_t n);
