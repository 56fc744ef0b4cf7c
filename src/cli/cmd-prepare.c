#include "cli-config.h"
#include "cli-inputs.h"
#include "cli-internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent-client.h"
#include "env-fingerprint.h"
#include "evidence-dir.h"
#include "plan/impact.h"

static const struct cli_opt prepare_opts[] = {
        { "compose", 'c', "COMPOSE",
          "compose file (default: compose.yaml, compose.yml, docker-compose.yml or "
          "docker-compose.yaml in the working directory, else next to the drill)" },
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt plan_opts[] = {
        { "compose", 'c', "COMPOSE",
          "compose file (default: compose.yaml, compose.yml, docker-compose.yml or "
          "docker-compose.yaml in the working directory, else next to the drill)" },
        { "json", 0, NULL, "machine-readable output" },
        { "evidence-dir", 0, "DIR", "also write the plan to DIR/PLAN_ID.json" },
        CLI_OPT_HELP,
        { 0 },
};

static int load(
        struct cli_ctx *ctx, const struct cli_args *args, struct cli_inputs *in, struct mh_error *reterr) {
        const char *spec = NULL;
        int r = cli_spec_path(ctx, args, &spec, reterr);
        if (r < 0)
                return r;
        r = cli_inputs_load(ctx, spec, cli_arg(ctx, args, "compose"), PLAN_HOST_LOCAL, in, reterr);
        if (r >= 0 && !cli_arg(ctx, args, "json")) /* JSON output carries the warnings itself */
                cli_inputs_warn(ctx, in);
        return r;
}

/* The compose file's, then the plan's. */
static json_t *warnings_json(const struct cli_inputs *in) {
        const struct plan *pl = in->plan;
        json_t *a = json_array();
        for (size_t i = 0; a && in->topology && i < in->topology->n_warnings; i++)
                json_array_append_new(a, json_string(in->topology->warnings[i]));
        for (size_t i = 0; a && i < pl->n_warnings; i++)
                json_array_append_new(a, json_string(pl->warnings[i]));
        return a;
}

static int run_validate(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(cli_inputs_done) struct cli_inputs in = { 0 };
        int r = load(ctx, args, &in, reterr);
        if (r != 0) /* a refusal, or --dry-run done */
                return r < 0 ? r : 0;
        const struct plan *pl = in.plan;
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"))
                return cli_print_json(
                        ctx,
                        json_pack(
                                "{s:s, s:I, s:I, s:s, s:o}", "plan_id", pl->run_id, "steps",
                                (json_int_t)pl->n_steps, "faults", (json_int_t)pl->n_faults, "fingerprint",
                                pl->fingerprint, "warnings", warnings_json(&in)),
                        reterr);
        cli_inputs_print_validated(ctx, &in);
        return 0;
}

/* The kernel features a local agent reports (it probes them as root);
 * JSON {"known": false} when it cannot be asked. */
static json_t *local_kernel(void) {
        _cleanup_(agent_client_stopp) struct agent_client *agent = NULL;
        struct agent_client_options o = { .roles = "network", .run_id = "prepare" };
        json_t *caps = NULL, *kernel = NULL;
        if (geteuid() == 0 && agent_client_start(&o, &agent, NULL) >= 0 &&
            agent_client_call(agent, "capabilities.query", json_object(), 30000, &caps, NULL) >= 0)
                kernel = json_incref(json_object_get(caps, "kernel"));
        json_decref(caps);
        return kernel ? kernel : json_pack("{s:b}", "known", false);
}

/* How each network fault would be delivered on this machine's kernel (the
 * impact gate, from what a local agent probes; a run decides again from its
 * own agent's kernel). Not part of the fingerprinted plan: the same drill
 * plans the same on any kernel. */
static void add_delivery(const struct plan *pl, json_t *out) {
        struct impact_kernel k;
        json_t *faults = json_object_get(out, "faults");
        bool any = false;
        for (size_t i = 0; i < pl->n_faults; i++)
                any = any || pl->faults[i].src->def->net.action != NET_ACTION_NONE;
        if (!any)
                return;
        json_t *kernel = local_kernel();
        impact_kernel_from_json(kernel, &k);
        json_object_set_new(out, "kernel", kernel);
        for (size_t i = 0; i < pl->n_faults && k.known; i++) {
                const struct plan_fault *f = &pl->faults[i];
                json_t *params = plan_fault_params_json(f->src);
                struct impact_request rq;
                impact_request_of(f, params, &rq);
                enum net_delivery d;
                char why[256];
                int x = impact_net_delivery(&rq, &k, &d, why, sizeof(why));
                json_t *fj = json_array_get(faults, i);
                if (x > 0)
                        json_object_set_new(fj, "delivery", json_string(net_delivery_to_string(d)));
                else if (x < 0)
                        json_object_set_new(fj, "delivery_refused", json_string(why));
                json_decref(params);
        }
}

static json_t *abs_path_json(const char *path) {
        _cleanup_free_ char *abs = path ? realpath(path, NULL) : NULL;
        return abs ? json_string(abs) : path ? json_string(path) : json_null();
}

/* Beside the plan, not fingerprinted: the files it was planned from and
 * the environment it was planned for, so `run --from-plan` can plan it
 * again and refuse it when either changed. */
static int add_inputs(
        struct cli_ctx *ctx, const struct cli_inputs *in, json_t *out, struct mh_error *reterr) {
        const char *compose = in->topology ? in->topology->source_path : NULL;
        struct env_facts f;
        char host[256];
        int r = env_facts_collect(
                NULL, compose, ctx->profile, ctx->policy, ctx->target, host, sizeof(host), &f, reterr);
        if (r < 0)
                return r;
        json_object_set_new(
                out, "inputs",
                json_pack(
                        "{s:o, s:o}", "drill", abs_path_json(in->spec->path), "compose",
                        abs_path_json(compose)));
        json_object_set_new(out, "environment", env_facts_json(&f));
        return 0;
}

/* --json: the preflight summary; otherwise the frozen plan itself. */
static int run_plan(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(cli_inputs_done) struct cli_inputs in = { 0 };
        json_t *out = NULL;
        int r = load(ctx, args, &in, reterr);
        if (r != 0) /* a refusal, or --dry-run done */
                return r < 0 ? r : 0;
        const struct plan *pl = in.plan;
        if (cli_arg(ctx, args, "json"))
                out = json_pack(
                        "{s:s, s:s, s:I, s:I, s:o, s:o}", "plan_id", pl->run_id, "fingerprint",
                        pl->fingerprint, "steps", (json_int_t)pl->n_steps, "faults",
                        (json_int_t)pl->n_faults, "decisions", plan_decisions_json(pl), "warnings",
                        warnings_json(&in));
        else if ((r = plan_to_json(pl, &out)) < 0)
                return mh_error_set(reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        else if ((r = add_inputs(ctx, &in, out, reterr)) < 0) {
                json_decref(out);
                return r;
        } else
                add_delivery(pl, out);
        const char *dir = cli_arg(ctx, args, "evidence-dir");
        char path[1100];
        if (dir && (r = evidence_dir_write(dir, pl->run_id, out, path, sizeof(path), reterr)) < 0) {
                json_decref(out);
                return r;
        }
        if (dir)
                fprintf(ctx->err, "plan written to %s\n", path);
        return cli_print_json(ctx, out, reterr);
}

static const struct cli_command prepare_validate = {
        .name = "validate",
        .summary = "compile a drill against the compose file and run every gate; touches nothing",
        .usage = "[SPEC] [-c COMPOSE] [--json]",
        .help = "Parses the drill, resolves its targets in the compose file, runs the safety gates,\n"
                "refuses what this build cannot run (a planned-only fault, a check with an execution other\n"
                "than host, a logs source, a hold that outlasts config.timeout) and prints the plan's id\n"
                "and fingerprint; each run of the plan gets its own id. Errors are FILE:LINE:COL lines\n"
                "(exit 4; 5 when a safety gate refuses).",
        .opts = prepare_opts,
        .min_args = 0, /* SPEC may be the --config file (kind: drill) */
        .max_args = 1,
        .run = run_validate,
};

static const struct cli_command prepare_plan = {
        .name = "plan",
        .summary = "print the frozen plan (canonical content, sha256 fingerprint) as JSON",
        .usage = "[SPEC] [-c COMPOSE] [--json] [--evidence-dir DIR]",
        .help = "Prints the frozen plan: resolved targets, typed parameters, and for every fault its undo\n"
                "ops, verify probes and effect check. The same drill and compose file give the same\n"
                "fingerprint. --json prints the preflight summary (decisions, warnings) instead. Beside "
                "the\n"
                "plan: the files it was planned from and the environment fingerprint, for `mayhem run\n"
                "--from-plan FILE`.",
        .opts = plan_opts,
        .min_args = 0, /* SPEC may be the --config file (kind: drill) */
        .max_args = 1,
        .run = run_plan,
};

static const struct cli_command *const prepare_subcommands[] = { &prepare_validate, &prepare_plan,
                                                                 &cli_prepare_config, NULL };

const struct cli_command cli_prepare = {
        .name = "prepare",
        .summary = "validate a drill and show its frozen plan",
        .usage = "COMMAND ...",
        .subcommands = prepare_subcommands,
};
