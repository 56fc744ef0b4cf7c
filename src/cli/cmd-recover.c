#include "cli-internal.h"

#include <jansson.h>
#include <string.h>

#include "evidence/evidence.h"
#include "evidence/lease.h"
#include "run/recovery.h"

static const struct cli_opt recover_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        { "force", 0, NULL, "recover even when the run's controller is still alive" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt legacy_opts[] = {
        { "execute", 'e', NULL, "undo and verify (without it: what recovery would do)" },
        { "json", 0, NULL, "machine-readable output" },
        { "force", 0, NULL, "recover even when the run's controller is still alive" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt forget_opts[] = {
        { "reason", 'r', "TEXT", "why the lease is given up (required; kept in the journal)" },
        { "force", 0, NULL, "even when the lease's run is still running under a live controller" },
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt janitor_opts[] = {
        { "execute", 'e', NULL, "really undo (without it: preview)" },
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static bool want_json(const struct cli_ctx *ctx, const struct cli_args *args) {
        return ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json");
}

static int print_result(
        struct cli_ctx *ctx, bool json, struct recovery_result *res, struct mh_error *reterr) {
        int r = 0;
        if (json)
                r = cli_print_json(
                        ctx,
                        json_pack(
                                "{s:I, s:I, s:I, s:I, s:I, s:O}", "considered", (json_int_t)res->considered,
                                "recovered", (json_int_t)res->recovered, "dirty", (json_int_t)res->dirty,
                                "skipped", (json_int_t)res->skipped, "runs_closed",
                                (json_int_t)res->runs_closed, "leases", res->leases),
                        reterr);
        else if (res->considered == 0)
                fprintf(ctx->out, "nothing to recover\n");
        int code = res->dirty ? MH_EXIT_RECOVERY_FAILURE : 0;
        recovery_result_done(res);
        return r < 0 ? r : code;
}

static int recover(struct cli_ctx *ctx, const struct cli_args *args, bool execute, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        struct recovery_result res = { 0 };
        bool json = want_json(ctx, args);
        struct recovery_options o = { .mode = RECOVERY_RUNS,
                                      .execute = execute,
                                      .run_ids = (const char *const *)args->positional,
                                      .n_run_ids = args->n_positional,
                                      .force = cli_arg(ctx, args, "force"),
                                      .mechanism = "manual",
                                      .progress = json ? NULL : cli_print_line,
                                      .progress_userdata = ctx->out };
        int r = evidence_open(ctx->db_path, &ev, reterr);
        if (r < 0 || (r = recovery_run(ev, &o, &res, reterr)) < 0)
                return r;
        return print_result(ctx, json, &res, reterr);
}

static int run_plan(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        return recover(ctx, args, false, reterr);
}

static int run_execute(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        return recover(ctx, args, true, reterr);
}

/* The reference's spelling, `mayhem recover RUN_ID [--execute]`. */
static int run_legacy(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        return recover(ctx, args, cli_arg(ctx, args, "execute"), reterr);
}

static int run_status(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *all = json_array();
        int r = evidence_open(ctx->db_path, &ev, reterr);
        for (size_t i = 0; r >= 0 && i < args->n_positional; i++) {
                json_t *leases = NULL;
                if ((r = evidence_leases_json(ev, args->positional[i], false, &leases, reterr)) >= 0)
                        json_array_extend(all, leases);
                json_decref(leases);
        }
        if (r < 0) {
                json_decref(all);
                return r;
        }
        if (want_json(ctx, args))
                return cli_print_json(ctx, all, reterr);
        size_t i;
        json_t *l;
        json_array_foreach(all, i, l)
                fprintf(ctx->out, "%s  %-9s %-18s run %s%s%s\n", json_string_value(json_object_get(l, "id")),
                        json_string_value(json_object_get(l, "state")),
                        json_string_value(json_object_get(l, "fault_id")),
                        json_string_value(json_object_get(l, "run_id")),
                        json_is_true(json_object_get(l, "open")) ? "  (open)" : "",
                        json_is_true(json_object_get(l, "overdue")) ? " (overdue)" : "");
        json_decref(all);
        return 0;
}

/* A lease of a run whose controller still lives is the controller's. */
static int refuse_live_run(struct evidence *ev, const char *run_id, struct mh_error *reterr) {
        json_t *runs = NULL;
        int r = evidence_runs_json(ev, run_id, 1, &runs, reterr);
        const char *status = json_string_value(json_object_get(json_array_get(runs, 0), "status"));
        if (r >= 0 && status && strcmp(status, "running") == 0)
                r = mh_error_set(
                        reterr, -EBUSY, MH_EXIT_CONFIG_ERROR, "run_alive",
                        "run %s is still running under a live controller; stop it (Ctrl-C undoes its "
                        "faults) or pass --force",
                        run_id);
        json_decref(runs);
        return r;
}

static int run_forget(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        const char *id = args->positional[0], *reason = cli_arg(ctx, args, "reason");
        struct lease l = { 0 };
        enum lease_state from;
        if (!reason || !reason[0] || strpbrk(reason, "\n\r"))
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage",
                        "recover forget needs --reason TEXT, one line: why the lease is given up");
        int r = evidence_open(ctx->db_path, &ev, reterr);
        if (r < 0 || (r = lease_get(ev, id, &l, reterr)) < 0)
                return r == -ENOENT ? mh_error_set(
                                              reterr, r, MH_EXIT_VALIDATION_ERROR, "validation",
                                              "no lease '%s' in the evidence database", id)
                                    : r;
        if ((cli_arg(ctx, args, "force") || (r = refuse_live_run(ev, l.run_id, reterr)) >= 0) &&
            (r = lease_forget(ev, id, reason, &from, reterr)) >= 0) {
                if (want_json(ctx, args))
                        r = cli_print_json(
                                ctx,
                                json_pack(
                                        "{s:s, s:s, s:s, s:s}", "lease", id, "fault", l.fault_id, "was",
                                        lease_state_to_string(from), "reason", reason),
                                reterr);
                else
                        fprintf(ctx->out,
                                "forgot lease %s (%s, was %s): %s\nnothing was undone: check its target by "
                                "hand\n",
                                id, l.fault_id, lease_state_to_string(from), reason);
        }
        lease_done(&l);
        return r;
}

static int run_janitor(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        struct recovery_result res = { 0 };
        bool json = want_json(ctx, args);
        struct recovery_options o = { .mode = RECOVERY_JANITOR,
                                      .execute = cli_arg(ctx, args, "execute"),
                                      .mechanism = "janitor",
                                      .progress = json ? NULL : cli_print_line,
                                      .progress_userdata = ctx->out };
        int r = evidence_open(ctx->db_path, &ev, reterr);
        if (r < 0 || (r = recovery_run(ev, &o, &res, reterr)) < 0)
                return r;
        if (!json && !o.execute && res.considered)
                fprintf(ctx->out, "preview only; pass --execute to undo\n");
        return print_result(ctx, json, &res, reterr);
}

#define RECOVER_SUB(n, fn, s)                                                                               \
        static const struct cli_command recover_##n = {                                                     \
                .name = #n,                                                                                 \
                .summary = s,                                                                               \
                .usage = "RUN_ID... [--force] [--json]",                                                    \
                .opts = recover_opts,                                                                       \
                .min_args = 1,                                                                              \
                .max_args = 64,                                                                             \
                .run = fn,                                                                                  \
        }

RECOVER_SUB(status, run_status, "the leases of these runs and their states");
RECOVER_SUB(plan, run_plan, "what recovery would undo and check, lease by lease");
RECOVER_SUB(
        execute, run_execute, "undo and verify every open lease of these runs (exit 7 if one stays dirty)");

static const struct cli_command recover_forget = {
        .name = "forget",
        .summary = "give up a lease that cannot be undone (a person's decision, kept in the journal)",
        .usage = "LEASE_ID --reason TEXT [--force] [--json]",
        .help = "For a lease recovery cannot clean up (its target was removed, or fixed by hand): it is\n"
                "marked expired with release mechanism manual and the reason in its notes, nothing is\n"
                "undone, and later runs and the janitor no longer act on it.",
        .opts = forget_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_forget,
};

static const struct cli_command *const recover_subcommands[] = { &recover_status, &recover_plan,
                                                                 &recover_execute, &recover_forget, NULL };

static const struct cli_command recover_legacy = {
        .name = "recover",
        .summary = "the legacy spelling: recover plan RUN_ID..., or recover execute with --execute",
        .usage = "RUN_ID... [--execute] [--force] [--json]",
        .opts = legacy_opts,
        .min_args = 1,
        .max_args = 64,
        .run = run_legacy,
};

const struct cli_command cli_recover = {
        .name = "recover",
        .summary = "undo what runs left behind (a killed controller or agent)",
        .usage = "status|plan|execute RUN_ID... | forget LEASE_ID --reason TEXT | RUN_ID... [--execute]",
        .help = "Replays the undo ops recorded in each open lease through a fresh local agent, then the\n"
                "verify probes. A lease is released only when they pass; otherwise it is dirty and the\n"
                "message says what to fix by hand (exit 7). Undo is idempotent: a lease already undone\n"
                "by the agent's dead-man's switch is just verified and released. The reference's spelling\n"
                "`mayhem recover RUN_ID... [--execute]` is recover plan (recover execute with --execute).",
        .subcommands = recover_subcommands,
        .legacy_run_ids = &recover_legacy,
};

const struct cli_command cli_janitor = {
        .name = "janitor",
        .summary = "recover every lease whose controller died, whose run ended or whose TTL passed",
        .usage = "[-e|--execute] [--json]",
        .help = "Preview by default. Runs automatically, with --execute, before every `mayhem run`.",
        .opts = janitor_opts,
        .run = run_janitor,
};
