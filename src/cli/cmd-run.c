#include "cli-config.h"
#include "cli-execute.h"
#include "cli-inputs.h"
#include "cli-internal.h"
#include "evidence-dir.h"
#include "report-out.h"
#include "run-setup.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "evidence/evidence.h"
#include "run/recovery.h"
#include "run/run.h"
#include "run/steady-state.h"

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
        { "baseline-from", 0, "RUN_ID", "grade steady state against that run's recorded baselines" },
        { "report", 0, "FORMAT=FILE",
          "after the run, write its report (json|junit|html|md) to FILE; repeatable" },
        CLI_OPT_HELP,
        { 0 },
};

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

static json_t *slos_json(const struct run_result *r) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < r->n_slos; i++) {
                const struct slo_result *s = &r->slos[i];
                json_array_append_new(
                        a, json_pack(
                                   "{s:s?, s:s?, s:s, s:b, s:o, s:I, s:s}", "name", s->slo->name, "metric",
                                   s->slo->metric, "kind", slo_kind_to_string(s->slo->kind), "passed",
                                   s->passed, "observed", run_number_json(s->observed), "samples",
                                   (json_int_t)s->samples, "detail", s->detail));
        }
        return a;
}

static json_t *steady_json(const struct run_result *r) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < r->n_ss; i++) {
                const struct ss_evaluation *e = &r->ss[i];
                const char *verdict = ss_verdict_to_string(e->verdict);
                json_array_append_new(
                        a, json_pack(
                                   "{s:s?, s:s, s:s, s:o, s:b, s:o, s:o, s:o, s:I, s:s}", "signal",
                                   e->signal->name, "phase", ss_phase_to_string(e->phase), "assertion",
                                   ss_assertion_to_string(e->assertion), "verdict",
                                   verdict ? json_string(verdict) : json_null(), "passed", e->passed,
                                   "baseline", run_number_json(e->b), "value", run_number_json(e->d),
                                   "delta_pct", run_number_json(e->delta_pct), "samples",
                                   (json_int_t)e->samples, "reason", e->reason));
        }
        return a;
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
                "{s:s, s:s, s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:f, s:i, s:o, s:o, "
                "s:o}",
                "run_id", r->run_id, "status", run_status_to_string(r->status), "verdict",
                verdict_to_string(r->verdict), "reason", r->reason, "criteria", criteria, "faults",
                "injected", (json_int_t)r->faults_injected, "in_force", (json_int_t)r->faults_in_force,
                "proven", (json_int_t)r->faults_proven, "not_observable", (json_int_t)r->faults_unobserved,
                "released", (json_int_t)r->faults_released, "dirty", (json_int_t)r->leases_dirty, "bypassed",
                (json_int_t)r->faults_bypassed, "skipped", (json_int_t)r->faults_skipped, "wall_s",
                r->wall_s, "exit", run_exit_code(r), "resilience",
                r->resilience_json ? json_incref(r->resilience_json)
                                   : json_pack("{s:s}", "not_computed", r->resilience),
                "slos", slos_json(r), "steady_state", steady_json(r));
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
        const struct run_result *res, bool json, struct mh_error *reterr) {
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

struct after_run {
        struct cli_ctx *ctx;
        const struct cli_args *args;
        const struct plan *plan;
        bool json;
        const struct report_out *reports;
        size_t n_reports;
};

static int after_run(
        void *userdata, struct evidence *ev, const struct run_result *res, struct mh_error *reterr) {
        const struct after_run *a = userdata;
        int r = report(a->ctx, a->args, ev, a->plan, res, a->json, reterr);
        return r < 0 ? r : report_outs_write(a->ctx, ev, res->run_id, a->reports, a->n_reports, reterr);
}

static int execute(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, enum cli_intent intent,
        const char *glass, const struct report_out *reports, size_t n_reports, struct mh_error *reterr) {
        _cleanup_free_ char *spec = json_dumps(s->spec, JSON_COMPACT | JSON_SORT_KEYS);
        struct run_result res = { 0 };
        bool json = ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
        const char *ssh_args[] = { "-F", cli_arg(ctx, args, "ssh-config"), NULL };
        struct after_run a = { ctx, args, s->in.plan, json, reports, n_reports };
        struct cli_execute x = {
                .json = json,
                .engine = s->engine,
                .run = { .agent_ssh = cli_arg(ctx, args, "agent"),
                         .agent_remote_path = cli_arg(ctx, args, "remote-agent"),
                         .agent_ssh_args = ssh_args[1] ? ssh_args : NULL,
                         .spec_json = spec,
                         .execution_intent = intent == CLI_INTENT_EXPLICIT ? "explicit" : NULL,
                         .env_fingerprint = s->env_fingerprint,
                         .break_glass = glass,
                         .skip_gate = ctx->skip_gate,
                         .only_containers = s->scope,
                         .n_only_containers = s->n_scope,
                         .baseline_from = cli_arg(ctx, args, "baseline-from") },
                .after = after_run,
                .after_userdata = &a,
        };
        int r = cli_execute_plan(ctx, s->in.plan, &x, &res, reterr);
        if (r < 0)
                return r;
        int code = run_exit_code(&res);
        run_result_done(&res);
        return code;
}

static int run_run(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(run_setup_done) struct run_setup s = { 0 };
        const char *glass = NULL, *diff = cli_arg(ctx, args, "diff");
        struct report_out reports[REPORT_OUTS_MAX];
        size_t n_reports = 0;
        int r = report_outs_parse(ctx, args, reports, &n_reports, reterr);
        if (r < 0)
                return r;
        r = run_setup_load(ctx, args, &s, reterr);
        if (r != 0) /* a refusal, or --dry-run done: it wins over --execute */
                return r < 0 ? r : 0;
        cli_inputs_warn(ctx, &s.in);
        if (diff)
                return run_setup_diff(
                        ctx, &s, diff, ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"), reterr);
        enum cli_intent intent = cli_execution_intent(ctx, args);
        if (intent == CLI_INTENT_NONE) {
                cli_inputs_print_validated(ctx, &s.in);
                fprintf(ctx->err, "plan ready; pass --execute to run\n");
                return 0;
        }
        if ((r = break_glass(ctx, &glass, reterr)) < 0)
                return r;
        return execute(ctx, args, &s, intent, glass, reports, n_reports, reterr);
}

const struct cli_command cli_run = {
        .name = "run",
        .summary = "run a drill: inject, observe, undo, verify, judge (needs --execute)",
        .usage = "[SPEC] [-c COMPOSE] --execute [--ctr CONTAINER] [--engine docker|podman] [--from-plan "
                 "FILE | "
                 "--plan-id RUN_ID] [--diff FILE] [--evidence-dir DIR] [--baseline-from RUN_ID] [--report "
                 "FORMAT=FILE]... [--json]",
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
