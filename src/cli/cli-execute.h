#pragma once

#include "cli.h"
#include "plan/plan.h"
#include "run/run.h"

/* What a mutating command adds to run_execute()'s options. */
struct cli_execute {
        bool json; /* no progress lines: the caller prints JSON */
        const char *kind;
        bool has_seed;
        int64_t seed;
        int (*on_begin)(void *userdata, struct evidence *ev, const char *run_id, struct mh_error *reterr);
        void *on_begin_userdata;
};

/* The execute path of a frozen plan, as `run` has it: the engine (when a
 * target is a container or an inspection source needs it), the evidence
 * (exit 3 when it cannot be written: nothing is touched without a journal),
 * the janitor's sweep (exit 7 while an earlier run left a lease dirty), then
 * run_execute() with progress lines on stderr. ret is filled when it
 * returns >= 0; the caller prints it and run_result_done()s it. */
int cli_execute_plan(
        struct cli_ctx *ctx, const struct plan *plan, const struct cli_execute *x, struct run_result *ret,
        struct mh_error *reterr);
