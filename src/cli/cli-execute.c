#include "cli-execute.h"
#include "cli-internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress-live.h"

#include "basic/macro.h"
#include "config/mayhem-config.h"
#include "engine/engine.h"
#include "evidence/evidence.h"
#include "run/recovery.h"

enum cli_intent cli_execution_intent(const struct cli_ctx *ctx, const struct cli_args *args) {
        if (cli_arg(ctx, args, "execute"))
                return CLI_INTENT_EXPLICIT;
        const char *implicit = getenv("MAYHEM_ALLOW_IMPLICIT_EXECUTION");
        if (implicit && strcmp(implicit, "1") == 0) {
                cli_print_warning(
                        ctx, "MAYHEM_ALLOW_IMPLICIT_EXECUTION=1: executing without --execute; this "
                             "compatibility switch will go, pass --execute (the evidence records "
                             "execution_intent null)");
                return CLI_INTENT_IMPLICIT;
        }
        return CLI_INTENT_NONE;
}

/* Containers, and inspection sources, need the engine; host processes do not. */
static bool needs_engine(const struct plan *pl) {
        for (size_t i = 0; i < pl->n_targets; i++)
                if (pl->targets[i].container)
                        return true;
        for (size_t i = 0; i < pl->spec->observability.n_sources; i++)
                if (pl->spec->observability.sources[i].kind == OBS_INSPECTION ||
                    pl->spec->observability.sources[i].kind == OBS_LOGS)
                        return true;
        return false;
}

/* The janitor before every run: leases of dead controllers are recovered
 * first, and a run does not start while an earlier one left something dirty. */
static int sweep(struct cli_ctx *ctx, struct evidence *ev, bool json, struct mh_error *reterr) {
        struct recovery_options o = { .mode = RECOVERY_JANITOR,
                                      .execute = true,
                                      .mechanism = "janitor",
                                      .progress = json ? NULL : cli_print_line,
                                      .progress_userdata = ctx->err };
        struct recovery_result res = { 0 };
        int r = recovery_run(ev, &o, &res, reterr);
        size_t dirty = res.dirty;
        recovery_result_done(&res);
        if (r < 0)
                return r;
        if (dirty)
                return mh_error_set(
                        reterr, -EBUSY, MH_EXIT_RECOVERY_FAILURE, "dirty",
                        "%zu lease(s) of earlier runs are dirty; fix them by hand (mayhem inspect leases) "
                        "before injecting anything new",
                        dirty);
        return 0;
}

/* A live block only on a terminal that can move its cursor. */
static struct progress_live *progress_for(const struct cli_ctx *ctx, bool json) {
        const char *term = getenv("TERM");
        bool tty = isatty(fileno(ctx->err)) && term && strcmp(term, "dumb") != 0;
        return json ? NULL : progress_live_new(ctx->err, tty);
}

static int execute(
        struct cli_ctx *ctx, const struct plan *plan, const struct cli_execute *x, struct run_options *opt,
        struct evidence *ev, struct run_result *ret, struct mh_error *reterr) {
        struct progress_live *live = progress_for(ctx, x->json);
        opt->progress = live ? progress_live_line : NULL;
        opt->on_fault = live ? progress_live_fault : NULL;
        opt->on_probe = live ? progress_live_probe : NULL;
        opt->progress_userdata = live;
        int r = sweep(ctx, ev, x->json, reterr);
        if (r >= 0)
                r = run_execute(plan, opt, ret, reterr);
        progress_live_free(live);
        return r;
}

int cli_execute_plan(
        struct cli_ctx *ctx, const struct plan *plan, const struct cli_execute *x, struct run_result *ret,
        struct mh_error *reterr) {
        _cleanup_(engine_freep) struct engine *engine = NULL;
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        _cleanup_free_ char *config_json = NULL;
        int r;

        if (needs_engine(plan) && (r = engine_open(x->engine, NULL, &engine, reterr)) < 0)
                return r;
        if ((r = evidence_open(ctx->db_path, &ev, reterr)) < 0 || (r = evidence_writable(ev, reterr)) < 0) {
                reterr->exit = MH_EXIT_CONFIG_ERROR;
                return r;
        }
        if (ctx->config && (r = config_to_json_text(ctx->config, &config_json, reterr)) < 0)
                return r;
        struct run_options opt = x->run;
        opt.evidence = ev;
        opt.engine = engine;
        opt.config_json = config_json;
        if ((r = execute(ctx, plan, x, &opt, ev, ret, reterr)) < 0)
                return r;
        if (x->after && (r = x->after(x->after_userdata, ev, ret, reterr)) < 0) {
                run_result_done(ret);
                return r;
        }
        return 0;
}
