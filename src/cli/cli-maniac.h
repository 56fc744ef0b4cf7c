#pragma once

/* The inputs of `mayhem maniac`: fresh draws (a drill's faults or the
 * runnable catalog, a seed, a level, a step count) or the draws of a run
 * to replay, and the random drill that runs them, planned with every gate. */

#include <jansson.h>

#include "cli.h"
#include "config/mayhem-config.h"
#include "plan/maniac.h"
#include "plan/plan.h"

struct maniac_job {
        const struct mayhem_config *cfg; /* ctx->config */
        struct drill_spec *spec;         /* the drill drawn from; NULL: the catalog, or a replay */
        struct topology *topo;
        struct maniac_pool *pool;
        struct maniac_draw *draws;
        size_t n_draws;
        json_t *replayed;         /* the replayed run's draws: the strings draws point to */
        char **params;            /* replay: each draw's params as text, n_draws of them */
        const char *replay_of;    /* --replay RUN_ID */
        char *name;               /* the replayed run's drill name */
        bool seed_drawn;          /* no seed was given: it came from getrandom() */
        char *drill_text;         /* the random drill */
        struct drill_spec *drill; /* ... parsed */
        struct plan *plan;        /* ... planned */
};

void maniac_job_done(struct maniac_job *j);

/* Fresh draws: the drill (SPEC, or the configuration's drill, or none: the
 * catalog), the compose file, level and steps and seed, each from the first
 * of: the command line (--steps, --seed), the drill's config.maniac, the
 * configuration's maniac:, the defaults; no seed at all: getrandom(). */
int maniac_job_draw(
        struct cli_ctx *ctx, const char *spec_path, const char *compose_path, const char *steps,
        const char *seed, const char *only, struct maniac_job *j, struct mh_error *reterr);
/* The draws of run_id from the evidence, the compose file, and every
 * drawn container in it: -ENOENT (exit 4) when the run has no draws or a
 * container is gone. */
int maniac_job_replay(
        struct cli_ctx *ctx, const char *run_id, const char *compose_path, struct maniac_job *j,
        struct mh_error *reterr);
/* The draws as a drill, planned with the configuration and the root
 * options' gates (--policy, --allow-critical, --skip-gate, --dry-run). */
int maniac_job_plan(struct cli_ctx *ctx, struct maniac_job *j, struct mh_error *reterr);
