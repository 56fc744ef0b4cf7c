#include "cli-execute.h"
#include "cli-inputs.h"
#include "cli-internal.h"
#include "cli-maniac.h"
#include "report-out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"

static const struct cli_opt maniac_opts[] = {
        { "compose", 'c', "COMPOSE",
          "compose file (default: compose.yaml & co. in the working directory, else next to the drill)" },
        { "steps", 's', "N", "how many faults to draw, 1..500 (default: config.maniac.run_level, 10)" },
        { "seed", 0, "N", "the seed of the draws (default: config.maniac.seed, else a random one)" },
        { "ctr", 0, "CONTAINER", "draw only faults on this container" },
        { "replay", 0, "RUN_ID", "run the draws of that maniac run again, in the same order" },
        { "execute", 0, NULL, "really inject the faults (without it: refused)" },
        { "json", 0, NULL, "print the result as JSON" },
        { "report", 0, "FORMAT=FILE",
          "after the run, write its report (json|junit|html|md) to FILE; repeatable" },
        CLI_OPT_HELP,
        { 0 },
};

static bool want_json(const struct cli_ctx *ctx, const struct cli_args *args) {
        return ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
}

static void print_draws(FILE *f, const struct maniac_job *j) {
        for (size_t i = 0; i < j->n_draws; i++) {
                const struct maniac_draw *d = &j->draws[i];
                fprintf(f,
                        "  %3u  +%" PRId64 ".%03" PRId64 "s  %-24s on %-20s for %" PRId64 ".%03" PRId64
                        "s  %s\n",
                        d->seq, d->at_ms / 1000, d->at_ms % 1000, d->def->id, d->container,
                        d->duration_ms / 1000, d->duration_ms % 1000, d->params_json);
        }
}

static void print_header(const struct cli_ctx *ctx, const struct maniac_job *j) {
        const struct maniac_draw *d = &j->draws[0];
        if (j->replay_of)
                fprintf(ctx->err, "maniac: replaying %zu draw(s) of %s (level %u, seed %" PRId64 ")\n",
                        j->n_draws, j->replay_of, d->level, d->seed);
        else
                fprintf(ctx->err, "maniac: %zu draw(s) at level %u, seed %" PRId64 "%s\n", j->n_draws,
                        d->level, d->seed,
                        j->seed_drawn ? " (drawn at random; --seed repeats these draws)" : "");
}

/* §2.6: every gate's decision, then the draws; nothing is opened or touched. */
static int dry_run(
        const struct cli_ctx *ctx, const struct maniac_job *j, bool json, struct mh_error *reterr) {
        const struct plan *pl = j->plan;
        int r = 0;
        if (json)
                r = cli_print_json(
                        ctx,
                        json_pack(
                                "{s:b, s:s, s:I, s:o, s:o}", "dry_run", 1, "plan_id", pl->run_id, "seed",
                                (json_int_t)j->draws[0].seed, "draws",
                                maniac_draws_json(j->draws, j->n_draws), "decisions",
                                plan_decisions_json(pl)),
                        reterr);
        else {
                cli_print_decisions(ctx, pl);
                fprintf(ctx->out, "dry-run: %zu random fault round(s) drawn for %s; nothing injected\n",
                        j->n_draws, pl->run_id);
                print_draws(ctx->out, j);
        }
        if (r >= 0) /* either form: exit 5 with the first denial */
                r = cli_dry_run_verdict(ctx, pl, reterr);
        return r < 0 ? r : 0;
}

/* The draws and why this run exists, kept with the run before the first lease. */
static int record(void *userdata, struct evidence *ev, const char *run_id, struct mh_error *reterr) {
        const struct maniac_job *j = userdata;
        _cleanup_free_ struct evidence_maniac_draw *v = calloc(j->n_draws, sizeof(*v));
        if (!v)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        for (size_t i = 0; i < j->n_draws; i++) {
                const struct maniac_draw *d = &j->draws[i];
                v[i] = (struct evidence_maniac_draw){ .seq = (int)d->seq,
                                                      .seed = d->seed,
                                                      .level = (int)d->level,
                                                      .container = d->container,
                                                      .fault_id = d->def->id,
                                                      .params_json = d->params_json,
                                                      .duration_ms = d->duration_ms,
                                                      .at_ms = d->at_ms };
        }
        int r = evidence_maniac_draws_record(ev, run_id, v, j->n_draws, reterr);
        if (r < 0)
                return r;
        _cleanup_free_ char *payload = NULL;
        json_t *o = json_pack(
                "{s:I, s:I, s:I, s:s}", "seed", (json_int_t)j->draws[0].seed, "level",
                (json_int_t)j->draws[0].level, "steps", (json_int_t)j->n_draws, "source",
                j->replay_of ? "replay"
                : j->spec    ? "drill"
                             : "catalog");
        if (o && j->replay_of)
                json_object_set_new(o, "replay_of", json_string(j->replay_of));
        payload = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(o);
        if (!payload)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        return evidence_event(ev, run_id, EVENT_MANIAC_DECISION, payload, reterr);
}

static int print_result(
        const struct cli_ctx *ctx, const struct maniac_job *j, const struct run_result *res, bool json,
        struct mh_error *reterr) {
        if (json)
                return cli_print_json(
                        ctx,
                        json_pack(
                                "{s:s, s:s, s:s, s:s?, s:I, s:I, s:o, s:{s:I, s:I, s:I}, s:i}", "run_id",
                                res->run_id, "status", run_status_to_string(res->status), "verdict",
                                verdict_to_string(res->verdict), "replay_of", j->replay_of, "seed",
                                (json_int_t)j->draws[0].seed, "level", (json_int_t)j->draws[0].level,
                                "draws", maniac_draws_json(j->draws, j->n_draws), "faults", "injected",
                                (json_int_t)res->faults_injected, "released",
                                (json_int_t)res->faults_released, "dirty", (json_int_t)res->leases_dirty,
                                "exit", run_exit_code(res)),
                        reterr);
        _cleanup_free_ char *summary = run_summary_markdown(j->plan, res);
        fprintf(ctx->out, "\n%s\n", summary ? summary : "");
        print_draws(ctx->out, j);
        fprintf(ctx->out,
                "\nrun %s — inspect with `mayhem inspect history %s`, replay with `mayhem maniac --replay "
                "%s "
                "--execute`\n",
                res->run_id, res->run_id, res->run_id);
        return 0;
}

struct reports {
        const struct cli_ctx *ctx;
        const struct report_out *v;
        size_t n;
};

static int write_reports(
        void *userdata, struct evidence *ev, const struct run_result *res, struct mh_error *reterr) {
        const struct reports *rp = userdata;
        return report_outs_write(rp->ctx, ev, res->run_id, rp->v, rp->n, reterr);
}

static int execute(
        struct cli_ctx *ctx, struct maniac_job *j, bool json, enum cli_intent intent,
        const struct reports *reports, struct mh_error *reterr) {
        struct run_result res = { 0 };
        struct cli_execute x = { .json = json,
                                 .engine = ctx->podman ? ENGINE_PODMAN : ENGINE_DOCKER,
                                 .run = { .kind = "random",
                                          .has_seed = true,
                                          .seed = j->draws[0].seed,
                                          .execution_intent =
                                                  intent == CLI_INTENT_EXPLICIT ? "explicit" : NULL,
                                          .skip_gate = ctx->skip_gate,
                                          .on_begin = record,
                                          .on_begin_userdata = j },
                                 .after = write_reports,
                                 .after_userdata = (void *)reports };
        int r = cli_execute_plan(ctx, j->plan, &x, &res, reterr);
        if (r < 0)
                return r;
        r = print_result(ctx, j, &res, json, reterr);
        int code = run_exit_code(&res);
        run_result_done(&res);
        return r < 0 ? r : code;
}

static int load(
        struct cli_ctx *ctx, const struct cli_args *args, struct maniac_job *j, struct mh_error *reterr) {
        const char *replay = cli_arg(ctx, args, "replay"), *compose = cli_arg(ctx, args, "compose");
        if (!replay)
                return maniac_job_draw(
                        ctx, args->n_positional ? args->positional[0] : NULL, compose,
                        cli_arg(ctx, args, "steps"), cli_arg(ctx, args, "seed"), cli_arg(ctx, args, "ctr"),
                        j, reterr);
        if (args->n_positional || cli_arg(ctx, args, "steps") || cli_arg(ctx, args, "seed") ||
            cli_arg(ctx, args, "ctr"))
                return cli_usage_error(
                        reterr, ctx, "--replay takes the recorded draws: no SPEC, --steps, --seed or --ctr");
        return maniac_job_replay(ctx, replay, compose, j, reterr);
}

static int run_maniac(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(maniac_job_done) struct maniac_job j = { 0 };
        bool json = want_json(ctx, args);
        struct report_out outs[REPORT_OUTS_MAX];
        struct reports reports = { ctx, outs, 0 };
        int r;
        if ((r = report_outs_parse(ctx, args, outs, &reports.n, reterr)) < 0 ||
            (r = load(ctx, args, &j, reterr)) < 0 || (r = maniac_job_plan(ctx, &j, reterr)) < 0)
                return r;
        for (size_t i = 0; !json && i < j.plan->n_warnings; i++)
                cli_print_warning(ctx, j.plan->warnings[i]);
        if (!json)
                print_header(ctx, &j);
        if (ctx->dry_run)
                return dry_run(ctx, &j, json, reterr);
        enum cli_intent intent = cli_execution_intent(ctx, args);
        if (intent == CLI_INTENT_NONE)
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "execution_intent_required",
                        "maniac drew %zu fault(s) (seed %" PRId64 ") and injects nothing without --execute; "
                        "pass --execute to run them, or --dry-run to see them",
                        j.n_draws, j.draws[0].seed);
        return execute(ctx, &j, json, intent, &reports, reterr);
}

const struct cli_command cli_maniac = {
        .name = "maniac",
        .summary = "random faults from a drill or the catalog, seeded and replayable (needs --execute)",
        .usage = "[SPEC] [-c COMPOSE] [--steps N] [--seed N] [--ctr CONTAINER] --execute [--report "
                 "FORMAT=FILE]... "
                 "[--json] | "
                 "--replay RUN_ID --execute",
        .help = "Draws --steps faults at random (config.maniac.level 1..5: a container and its first\n"
                "fault, one of its faults, any fault of the drill, then with +-10 % or +-20 % duration\n"
                "jitter) from the drill, or with no SPEC from every container of the compose file x the\n"
                "faults this build runs, and runs them one after another as a drill: every safety gate\n"
                "applies to every draw. The seed and each draw are recorded (maniac_draws); --replay\n"
                "RUN_ID runs the same faults on the same containers in the same order again. Without\n"
                "--execute it is refused (exit 5, execution_intent_required); --dry-run prints the\n"
                "draws and touches nothing. Exit codes as `mayhem run`. See docs/maniac.md.",
        .opts = maniac_opts,
        .min_args = 0,
        .max_args = 1,
        .run = run_maniac,
};
