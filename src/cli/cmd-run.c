#include "cli-config.h"
#include "cli-inputs.h"
#include "cli-internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "evidence/evidence.h"
#include "run/recovery.h"
#include "run/run.h"

static const struct cli_opt run_opts[] = {
        { "compose", 'c', "COMPOSE",
          "compose file (default: compose.yaml & co. in the working directory, else next to the drill)" },
        { "execute", 0, NULL, "really inject the faults (without it: plan, gate, stop)" },
        { "json", 0, NULL, "print the result as JSON" },
        { "agent", 0, "ssh://USER@HOST[:PORT]", "inject through mayhem-agent on that host, over ssh" },
        { "ssh-config", 0, "FILE", "ssh client configuration for --agent (ssh -F FILE)" },
        { "remote-agent", 0, "PATH",
          "mayhem-agent's path on the --agent host (default: mayhem-agent in its PATH)" },
        CLI_OPT_HELP,
        { 0 },
};

static bool execution_intended(const struct cli_ctx *ctx, const struct cli_args *args) {
        if (cli_arg(ctx, args, "execute"))
                return true;
        const char *implicit = getenv("MAYHEM_ALLOW_IMPLICIT_EXECUTION");
        if (implicit && strcmp(implicit, "1") == 0) {
                cli_print_warning(ctx, "MAYHEM_ALLOW_IMPLICIT_EXECUTION=1: executing without --execute");
                return true;
        }
        return false;
}

static json_t *result_json(const struct run_result *r) {
        json_t *criteria = json_array();
        for (size_t i = 0; criteria && i < r->n_criteria; i++)
                json_array_append_new(
                        criteria, json_pack(
                                          "{s:s, s:s, s:b, s:s}", "type",
                                          criterion_type_to_string(r->criteria[i].criterion->type),
                                          "source_id", r->criteria[i].criterion->source_id, "satisfied",
                                          r->criteria[i].satisfied, "detail", r->criteria[i].detail));
        return json_pack(
                "{s:s, s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:f, s:i}", "run_id", r->run_id,
                "status", run_status_to_string(r->status), "verdict", verdict_to_string(r->verdict),
                "reason", r->reason, "criteria", criteria, "faults", "injected",
                (json_int_t)r->faults_injected, "in_force", (json_int_t)r->faults_in_force, "proven",
                (json_int_t)r->faults_proven, "not_observable", (json_int_t)r->faults_unobserved, "released",
                (json_int_t)r->faults_released, "dirty", (json_int_t)r->leases_dirty, "wall_s", r->wall_s,
                "exit", run_exit_code(r));
}

/* Containers, and inspection sources, need the engine; host processes do not. */
static bool needs_engine(const struct plan *pl) {
        for (size_t i = 0; i < pl->n_targets; i++)
                if (pl->targets[i].container)
                        return true;
        for (size_t i = 0; i < pl->spec->observability.n_sources; i++)
                if (pl->spec->observability.sources[i].kind == OBS_INSPECTION)
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

/* A run's progress line, time-stamped, on stderr. */
static void print_progress(void *userdata, const char *line) {
        FILE *f = userdata;
        char stamp[16];
        time_t now = time(NULL);
        strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
        fprintf(f, "%s %s\n", stamp, line);
        fflush(f);
}

static int execute(
        struct cli_ctx *ctx, const struct cli_args *args, struct cli_inputs *in, struct mh_error *reterr) {
        _cleanup_(engine_freep) struct engine *engine = NULL;
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        struct run_result res = { 0 };
        bool json = ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
        int r;

        if (needs_engine(in->plan) &&
            (r = engine_open(ctx->podman ? ENGINE_PODMAN : ENGINE_DOCKER, NULL, &engine, reterr)) < 0)
                return r;
        if ((r = evidence_open(ctx->db_path, &ev, reterr)) < 0 || (r = evidence_writable(ev, reterr)) < 0) {
                reterr->exit = MH_EXIT_CONFIG_ERROR; /* nothing is touched without a journal */
                return r;
        }
        const char *ssh_args[] = { "-F", cli_arg(ctx, args, "ssh-config"), NULL };
        struct run_options opt = { .evidence = ev,
                                   .engine = engine,
                                   .progress = json ? NULL : print_progress,
                                   .progress_userdata = ctx->err,
                                   .agent_ssh = cli_arg(ctx, args, "agent"),
                                   .agent_remote_path = cli_arg(ctx, args, "remote-agent"),
                                   .agent_ssh_args = ssh_args[1] ? ssh_args : NULL };
        if ((r = sweep(ctx, ev, json, reterr)) < 0 || (r = run_execute(in->plan, &opt, &res, reterr)) < 0)
                return r;
        if (json) {
                r = cli_print_json(ctx, result_json(&res), reterr);
        } else {
                char *summary = run_summary_markdown(in->plan, &res);
                fprintf(ctx->out, "\n%s\nrun %s — inspect with `mayhem inspect history %s`\n",
                        summary ? summary : "", res.run_id, res.run_id);
                free(summary);
        }
        int code = run_exit_code(&res);
        run_result_done(&res);
        return r < 0 ? r : code;
}

static int run_run(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(cli_inputs_done) struct cli_inputs in = { 0 };
        enum plan_host host = cli_arg(ctx, args, "agent") ? PLAN_HOST_REMOTE : PLAN_HOST_LOCAL;
        const char *spec = NULL;
        int r = cli_spec_path(ctx, args, &spec, reterr); /* SPEC, else a --config kind: drill file */
        if (r >= 0)
                r = cli_inputs_load(ctx, spec, cli_arg(ctx, args, "compose"), host, &in, reterr);
        if (r != 0) /* a refusal, or --dry-run done (it wins over --execute) */
                return r < 0 ? r : 0;
        cli_inputs_warn(ctx, &in);
        if (!execution_intended(ctx, args)) {
                cli_inputs_print_validated(ctx, &in);
                fprintf(ctx->err, "plan ready; pass --execute to run\n");
                return 0;
        }
        return execute(ctx, args, &in, reterr);
}

const struct cli_command cli_run = {
        .name = "run",
        .summary = "run a drill: inject, observe, undo, verify, judge (needs --execute)",
        .usage = "[SPEC] [-c COMPOSE] --execute [--json]",
        .help = "Plans the drill, then with --execute runs it against the live engine: every fault gets a\n"
                "write-ahead lease in the evidence database (--db, default mayhem.db) before it is "
                "injected,\n"
                "is checked to be in force, held, undone and verified. Ctrl-C undoes every active fault "
                "before\n"
                "exiting. Exit: 0 pass (or no criteria), 1 criteria failed, 3 engine unreachable or target\n"
                "missing, 4 invalid drill, 5 refused by a safety gate, 6 run did not complete, 7 something\n"
                "is left dirty (see `mayhem inspect leases`).",
        .opts = run_opts,
        .min_args = 0,
        .max_args = 1,
        .run = run_run,
};
