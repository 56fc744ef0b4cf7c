#pragma once

/* What `mayhem run` starts from, decided before anything is touched: the
 * drill (SPEC, a saved plan's inputs with --from-plan / --plan-id, or a
 * --config that is a drill), the effective configuration, the plan, the
 * environment it runs in and its fingerprint, the --ctr scope, the engine.
 * A saved plan whose environment or plan changed is refused here (exit 5). */

#include <jansson.h>

#include "cli-inputs.h"
#include "cli.h"
#include "config/mayhem-config.h"
#include "engine/engine.h"
#include "saved-plan.h"

struct run_setup {
        const struct mayhem_config *config; /* ctx->config */
        struct saved_plan saved;            /* root NULL without --from-plan / --plan-id */
        struct cli_inputs in;
        json_t *environment;         /* env_facts_json(): hosts, compose digest, profile, policy, target */
        const char *env_fingerprint; /* points into environment */
        json_t *spec;                /* runs.spec_json: {drill, compose, environment} */
        const char *only[1];         /* --ctr */
        const char *const *scope;    /* --ctr, else the target profile's containers; NULL: all */
        size_t n_scope;
        enum engine_kind engine;
        char host[256];
};

/* args are `run`'s (cmd-run.c names the options). */
int run_setup_load(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr);
void run_setup_done(struct run_setup *s);

/* --diff FILE: the structural diff between FILE's plan and this one,
 * printed (text, or JSON with json); returns 0. */
int run_setup_diff(
        struct cli_ctx *ctx, const struct run_setup *s, const char *file, bool json,
        struct mh_error *reterr);
