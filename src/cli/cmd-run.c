#include "cli-config.h"
#include "cli-inputs.h"
#include "cli-internal.h"
#include "evidence-dir.h"
#include "run-setup.h"

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
        { "ctr", 0, "CONTAINER", "only the faults on this container run; the others are skipped" },
        { "engine", 0, "docker|podman", "the engine (beats -p and the configuration's runtime)" },
        { "target", 0, "NAME", "target profile of the configuration (as the root option --target)" },
        { "from-plan", 0, "FILE",
          "run a plan saved by `mayhem prepare plan`: re-planned from its drill, refused if it changed" },
        { "plan-id", 0, "RUN_ID", "run the plan of an earlier run again (not with --from-plan)" },
        { "diff", 0, "FILE", "print what changed against the plan saved in FILE, then stop" },
        { "evidence-dir", 0, "DIR", "write the run's evidence envelope to DIR/RUN_ID.json" },
        CLI_OPT_HELP,
        { 0 },
};

enum intent {
        INTENT_NONE,
        INTENT_EXPLICIT, /* --execute */
        INTENT_IMPLICIT, /* MAYHEM_ALLOW_IMPLICIT_EXECUTION=1: recorded as NULL, as the reference */
};

static enum intent execution_intended(const struct cli_ctx *ctx, const struct cli_args *args) {
        if (cli_arg(ctx, args, "execute"))
                return INTENT_EXPLICIT;
        const char *implicit = getenv("MAYHEM_ALLOW_IMPLICIT_EXECUTION");
        if (implicit && strcmp(implicit, "1") == 0) {
                cli_print_warning(
                        ctx, "MAYHEM_ALLOW_IMPLICIT_EXECUTION=1: executing without --execute; this "
                             "compatibility switch will go, pass --execute (the evidence records "
                             "execution_intent null)");
                return INTENT_IMPLICIT;
        }
        return INTENT_NONE;
}

static bool env_is_1(const char *name) {
        const char *v = getenv(name);
        return v && strcmp(v, "1") == 0;
}

/* --skip-gate (reference §2.6): said loudly, marked in the evidence; in
 * automation (--format json) only with MAYHEM_ALLOW_SKIP_GATE=1 or
 * MAYHEM_BREAK_GLASS=1, else exit 4 before anything is touched. */
static int break_glass(struct cli_ctx *ctx, const char **ret, struct mh_error *reterr) {
        bool override = env_is_1("MAYHEM_ALLOW_SKIP_GATE") || env_is_1("MAYHEM_BREAK_GLASS");
        *ret = NULL;
        if (!ctx->skip_gate)
                return 0;
        fprintf(ctx->err,
                "!!! BREAK-GLASS WARNING !!! --skip-gate: network faults the impact gate finds no way to "
                "deliver on the agent's kernel are attempted instead of bypassed (their apply fails as "
                "failed_to_apply); the run is marked break_glass in the evidence\n");
        if (!override && ctx->format == CLI_FORMAT_JSON)
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_VALIDATION_ERROR, "break_glass",
                        "--skip-gate with --format json needs MAYHEM_ALLOW_SKIP_GATE=1 or "
                        "MAYHEM_BREAK_GLASS=1; nothing was touched");
        *ret = override ? "skip_gate+override" : "skip_gate";
        return 0;
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
                "{s:s, s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:f, s:i}", "run_id",
                r->run_id, "status", run_status_to_string(r->status), "verdict",
                verdict_to_string(r->verdict), "reason", r->reason, "criteria", criteria, "faults",
                "injected", (json_int_t)r->faults_injected, "in_force", (json_int_t)r->faults_in_force,
                "proven", (json_int_t)r->faults_proven, "not_observable", (json_int_t)r->faults_unobserved,
                "released", (json_int_t)r->faults_released, "dirty", (json_int_t)r->leases_dirty, "bypassed",
                (json_int_t)r->faults_bypassed, "skipped", (json_int_t)r->faults_skipped, "wall_s",
                r->wall_s, "exit", run_exit_code(r));
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

/* --evidence-dir: the envelope `inspect history --json` prints. */
static int write_envelope(
        struct cli_ctx *ctx, struct evidence *ev, const char *dir, const char *run_id,
        struct mh_error *reterr) {
        json_t *h = NULL;
        char path[1100];
        int r = evidence_history_json(ev, run_id, &h, reterr);
        if (r >= 0 && (r = evidence_dir_write(dir, run_id, h, path, sizeof(path), reterr)) >= 0)
                fprintf(ctx->err, "evidence envelope: %s\n", path);
        json_decref(h);
        return r;
}

static int report(
        struct cli_ctx *ctx, const struct cli_args *args, struct evidence *ev, const struct plan *pl,
        struct run_result *res, bool json, struct mh_error *reterr) {
        int r = 0;
        const char *dir = cli_arg(ctx, args, "evidence-dir");
        if (json) {
                r = cli_print_json(ctx, result_json(res), reterr);
        } else {
                char *summary = run_summary_markdown(pl, res);
                fprintf(ctx->out, "\n%s\nrun %s — inspect with `mayhem inspect history %s`\n",
                        summary ? summary : "", res->run_id, res->run_id);
                free(summary);
        }
        if (r >= 0 && dir)
                r = write_envelope(ctx, ev, dir, res->run_id, reterr);
        return r;
}

static int execute(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, enum intent intent,
        const char *glass, struct mh_error *reterr) {
        _cleanup_(engine_freep) struct engine *engine = NULL;
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        _cleanup_free_ char *spec = json_dumps(s->spec, JSON_COMPACT | JSON_SORT_KEYS);
        struct run_result res = { 0 };
        bool json = ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
        int r;

        if (needs_engine(s->in.plan) && (r = engine_open(s->engine, NULL, &engine, reterr)) < 0)
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
                                   .agent_ssh_args = ssh_args[1] ? ssh_args : NULL,
                                   .spec_json = spec,
                                   .execution_intent = intent == INTENT_EXPLICIT ? "explicit" : NULL,
                                   .env_fingerprint = s->env_fingerprint,
                                   .break_glass = glass,
                                   .skip_gate = ctx->skip_gate,
                                   .only_containers = s->scope,
                                   .n_only_containers = s->n_scope };
        if ((r = sweep(ctx, ev, json, reterr)) < 0 || (r = run_execute(s->in.plan, &opt, &res, reterr)) < 0)
                return r;
        r = report(ctx, args, ev, s->in.plan, &res, json, reterr);
        int code = run_exit_code(&res);
        run_result_done(&res);
        return r < 0 ? r : code;
}

static int run_run(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(run_setup_done) struct run_setup s = { 0 };
        const char *glass = NULL, *diff = cli_arg(ctx, args, "diff");
        int r = run_setup_load(ctx, args, &s, reterr);
        if (r != 0) /* a refusal, or --dry-run done: it wins over --execute */
                return r < 0 ? r : 0;
        cli_inputs_warn(ctx, &s.in);
        if (diff)
                return run_setup_diff(
                        ctx, &s, diff, ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"), reterr);
        enum intent intent = execution_intended(ctx, args);
        if (intent == INTENT_NONE) {
                cli_inputs_print_validated(ctx, &s.in);
                fprintf(ctx->err, "plan ready; pass --execute to run\n");
                return 0;
        }
        if ((r = break_glass(ctx, &glass, reterr)) < 0)
                return r;
        return execute(ctx, args, &s, intent, glass, reterr);
}

const struct cli_command cli_run = {
        .name = "run",
        .summary = "run a drill: inject, observe, undo, verify, judge (needs --execute)",
        .usage = "[SPEC] [-c COMPOSE] --execute [--ctr CONTAINER] [--engine docker|podman] [--from-plan "
                 "FILE | "
                 "--plan-id RUN_ID] [--diff FILE] [--evidence-dir DIR] [--json]",
        .help = "Plans the drill, then with --execute runs it against the live engine: every fault gets a\n"
                "write-ahead lease in the evidence database (--db, default mayhem.db) before it is "
                "injected,\n"
                "is checked to be in force, held, undone and verified. Ctrl-C undoes every active fault "
                "before\n"
                "exiting. A network fault the agent's kernel cannot deliver is bypassed (no lease; the "
                "rest\n"
                "runs); --skip-gate attempts it. --from-plan / --plan-id run a saved plan again, refused\n"
                "(exit 5) when its environment or plan fingerprint changed. docs/run-options.md has them "
                "all.\n"
                "Exit: 0 pass (or no criteria), 1 criteria failed, 2 usage, 3 engine unreachable or target\n"
                "missing, 4 invalid drill, 5 refused by a safety gate, 6 run did not complete, 7 something\n"
                "is left dirty (see `mayhem inspect leases`).",
        .opts = run_opts,
        .min_args = 0,
        .max_args = 1,
        .run = run_run,
};
