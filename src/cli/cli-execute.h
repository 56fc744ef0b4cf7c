#pragma once

#include "cli.h"
#include "engine/engine.h"
#include "plan/plan.h"
#include "run/run.h"

/* The execution intent (reference §2.6): --execute, or the compatibility
 * switch MAYHEM_ALLOW_IMPLICIT_EXECUTION=1 (warned, recorded as null). */
enum cli_intent {
        CLI_INTENT_NONE,
        CLI_INTENT_EXPLICIT,
        CLI_INTENT_IMPLICIT,
};
enum cli_intent cli_execution_intent(const struct cli_ctx *ctx, const struct cli_args *args);

/* What a mutating command (run, maniac) adds to run_execute(). */
struct cli_execute {
        bool json;               /* no progress lines: the caller prints JSON */
        enum engine_kind engine; /* opened when a target is a container or an inspection source needs it */
        /* The command's run options: kind, seed, intent, fingerprint, scope,
         * ...; the evidence, the engine, the progress lines and the
         * configuration's JSON are filled in here. */
        struct run_options run;
        /* With the evidence still open, after the run (the --evidence-dir
         * envelope). NULL: none. */
        int (*after)(
                void *userdata, struct evidence *ev, const struct run_result *res, struct mh_error *reterr);
        void *after_userdata;
};

/* The execute path of a frozen plan: the engine, the evidence (exit 3 when
 * it cannot be written: nothing is touched without a journal), the janitor's
 * sweep (exit 7 while an earlier run left a lease dirty), then run_execute()
 * with progress lines on stderr and ctx->config recorded in the run row.
 * ret is filled when it returns >= 0; the caller prints it and
 * run_result_done()s it. */
int cli_execute_plan(
        struct cli_ctx *ctx, const struct plan *plan, const struct cli_execute *x, struct run_result *ret,
        struct mh_error *reterr);
