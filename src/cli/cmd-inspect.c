#include "cli-internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "basic/parse-number.h"
#include "evidence/evidence.h"
#include "evidence/lease.h"

#define RUNS_LIMIT_DEFAULT 20
#define RUNS_LIMIT_MAX     1000000

static const struct cli_opt runs_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        { "run", 0, "RUN_ID", "only this run" },
        { "limit", 'n', "N", "the newest N runs (default 20)" },
        { "all", 'a', NULL, "every run" },
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

/* --limit N (1..RUNS_LIMIT_MAX), --all (0: no limit), else the default. */
static int runs_limit(
        struct cli_ctx *ctx, const struct cli_args *args, size_t *ret, struct mh_error *reterr) {
        const char *s = cli_arg(ctx, args, "limit");
        int64_t n;
        if (s && cli_arg(ctx, args, "all"))
                return cli_usage_error(reterr, ctx, "--limit and --all exclude each other");
        if (!s) {
                *ret = cli_arg(ctx, args, "all") ? 0 : RUNS_LIMIT_DEFAULT;
                return 0;
        }
        if (parse_int64(s, &n) < 0 || n < 1 || n > RUNS_LIMIT_MAX)
                return cli_usage_error(
                        reterr, ctx, "--limit takes a number from 1 to %d, not '%s'", RUNS_LIMIT_MAX, s);
        *ret = (size_t)n;
        return 0;
}

/* What the limit left out, said where it cannot be missed: after the
 * table, or on stderr beside JSON. */
static void print_hidden(const struct cli_ctx *ctx, bool json, size_t shown, size_t total) {
        if (shown >= total)
                return;
        fprintf(json ? ctx->err : ctx->out, "%zu of %zu runs shown (--all or --limit N for more)\n", shown,
                total);
}

static int run_runs(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        const char *only = cli_arg(ctx, args, "run");
        bool json = want_json(ctx, args);
        json_t *runs = NULL;
        size_t limit = 0, total = 0;
        int r;
        if ((r = runs_limit(ctx, args, &limit, reterr)) < 0 || (r = open_db(ctx, &ev, reterr)) < 0 ||
            (!only && (r = evidence_runs_count(ev, &total, reterr)) < 0) ||
            (r = evidence_runs_json(ev, only, limit, &runs, reterr)) < 0)
                return r;
        size_t shown = json_array_size(runs);
        if (json) {
                r = cli_print_json(ctx, runs, reterr);
                print_hidden(ctx, true, shown, total);
                return r;
        }
        fprintf(ctx->out, "%-28s %-6s %-10s %-9s %s\n", "RUN", "KIND", "STATUS", "VERDICT", "STARTED");
        size_t i;
        json_t *run;
        json_array_foreach(runs, i, run)
                fprintf(ctx->out, "%-28s %-6s %-10s %-9s %s\n", str(run, "id"), str(run, "kind"),
                        str(run, "status"), str(run, "verdict"), str(run, "started_at"));
        json_decref(runs);
        print_hidden(ctx, false, shown, total);
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
        .usage = "[--run RUN_ID] [--limit N | --all] [--json]",
        .help = "Lists the newest 20 runs unless --limit N or --all says otherwise, and says how many it\n"
                "left out (after the table; on stderr with --json).",
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

static const struct cli_command *const inspect_subcommands[] = { &inspect_runs,       &inspect_history,
                                                                 &inspect_leases,     &cli_inspect_run,
                                                                 &cli_inspect_report, NULL };

const struct cli_command cli_inspect = {
        .name = "inspect",
        .summary = "what the evidence database holds: runs, history, leases, one run",
        .usage = "COMMAND ...",
        .subcommands = inspect_subcommands,
};
