#include "cli-internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "evidence/lease.h"

#define RUNS_LIMIT_DEFAULT 20

static const struct cli_opt runs_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        { "run", 0, "RUN_ID", "only this run" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt history_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt leases_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        { "all", 'a', NULL, "also released and expired leases" },
        { "run", 0, "RUN_ID", "only the leases of this run" },
        CLI_OPT_HELP,
        { 0 },
};

static bool want_json(const struct cli_ctx *ctx, const struct cli_args *args) {
        return ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
}

static const char *str(const json_t *o, const char *key) {
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "-";
}

static int open_db(const struct cli_ctx *ctx, struct evidence **ret, struct mh_error *reterr) {
        return evidence_open(ctx->db_path, ret, reterr);
}

static int run_runs(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *runs = NULL;
        int r;
        if ((r = open_db(ctx, &ev, reterr)) < 0 ||
            (r = evidence_runs_json(ev, cli_arg(ctx, args, "run"), RUNS_LIMIT_DEFAULT, &runs, reterr)) < 0)
                return r;
        if (want_json(ctx, args))
                return cli_print_json(ctx, runs, reterr);
        fprintf(ctx->out, "%-28s %-6s %-10s %-9s %s\n", "RUN", "KIND", "STATUS", "VERDICT", "STARTED");
        size_t i;
        json_t *run;
        json_array_foreach(runs, i, run)
                fprintf(ctx->out, "%-28s %-6s %-10s %-9s %s\n", str(run, "id"), str(run, "kind"),
                        str(run, "status"), str(run, "verdict"), str(run, "started_at"));
        json_decref(runs);
        return 0;
}

static void print_lease_ops(FILE *out, const char *label, const json_t *ops, const char *name_key) {
        size_t i;
        json_t *op;
        json_array_foreach(ops, i, op) {
                json_t *args = json_object_get(op, "args");
                fprintf(out, "    %s %s container=%s id=%.12s pid=%" JSON_INTEGER_FORMAT "\n", label,
                        str(op, name_key), str(args, "container_name"), str(args, "container_id"),
                        json_integer_value(json_object_get(args, "pid")));
        }
}

static void print_lease(FILE *out, const json_t *l) {
        fprintf(out, "%s  %-9s %-18s run %s  expires %s\n", str(l, "id"), str(l, "state"),
                str(l, "fault_id"), str(l, "run_id"), str(l, "expires_at"));
        print_lease_ops(out, "undo:  ", json_object_get(l, "undo"), "op");
        print_lease_ops(out, "verify:", json_object_get(l, "verify"), "probe");
        if (json_string_value(json_object_get(l, "escalation_notes")))
                fprintf(out, "    notes: %s\n", str(l, "escalation_notes"));
}

static int run_leases(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *leases = NULL;
        int r;
        if ((r = open_db(ctx, &ev, reterr)) < 0 ||
            (r = evidence_leases_json(
                     ev, cli_arg(ctx, args, "run"), !cli_arg(ctx, args, "all"), &leases, reterr)) < 0)
                return r;
        if (want_json(ctx, args))
                return cli_print_json(ctx, leases, reterr);
        size_t i;
        json_t *l;
        json_array_foreach(leases, i, l) print_lease(ctx->out, l);
        fprintf(ctx->out, "%zu lease(s)%s\n", json_array_size(leases),
                cli_arg(ctx, args, "all") ? "" : " open");
        json_decref(leases);
        return 0;
}

static void print_history(FILE *out, const json_t *h) {
        const json_t *run = json_object_get(h, "run");
        size_t i;
        json_t *x;
        fprintf(out, "run %s (%s): %s, verdict %s, %s .. %s\n", str(run, "id"), str(run, "experiment_name"),
                str(run, "status"), str(run, "verdict"), str(run, "started_at"), str(run, "ended_at"));
        json_array_foreach(json_object_get(h, "steps"), i, x)
                fprintf(out, "  step %" JSON_INTEGER_FORMAT " %-10s %-10s %s\n",
                        json_integer_value(json_object_get(x, "seq")), str(x, "action_type"),
                        str(x, "status"), str(x, "error"));
        json_array_foreach(json_object_get(h, "leases"), i, x) print_lease(out, x);
        json_array_foreach(json_object_get(h, "events"), i, x) {
                char *payload = json_dumps(json_object_get(x, "payload"), JSON_COMPACT | JSON_SORT_KEYS);
                fprintf(out, "  %s %-22s %s\n", str(x, "ts"), str(x, "kind"), payload ? payload : "");
                free(payload);
        }
        fprintf(out, "%zu observation(s); --json shows them all\n",
                json_array_size(json_object_get(h, "observations")));
}

static int run_history(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *h = NULL;
        int r;
        if ((r = open_db(ctx, &ev, reterr)) < 0 ||
            (r = evidence_history_json(ev, args->positional[0], &h, reterr)) < 0)
                return r;
        if (want_json(ctx, args))
                return cli_print_json(ctx, h, reterr);
        print_history(ctx->out, h);
        json_decref(h);
        return 0;
}

static const struct cli_command inspect_runs = {
        .name = "runs",
        .summary = "the runs in the evidence database, newest first",
        .usage = "[--run RUN_ID] [--json]",
        .opts = runs_opts,
        .run = run_runs,
};

static const struct cli_command inspect_history = {
        .name = "history",
        .summary = "one run: steps, leases, events, observations",
        .usage = "RUN_ID [--json]",
        .opts = history_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_history,
};

static const struct cli_command inspect_leases = {
        .name = "leases",
        .summary = "fault leases not yet released, with what undoes them",
        .usage = "[--all] [--run RUN_ID] [--json]",
        .opts = leases_opts,
        .run = run_leases,
};

static const struct cli_command *const inspect_subcommands[] = { &inspect_runs, &inspect_history,
                                                                 &inspect_leases, NULL };

const struct cli_command cli_inspect = {
        .name = "inspect",
        .summary = "what the evidence database holds: runs, history, leases",
        .usage = "COMMAND ...",
        .subcommands = inspect_subcommands,
};
