/* `mayhem verify RUN_ID`: is the run's evidence complete and consistent?
 * The checks are pure (evidence/run-verify.c); this prints them. */

#include "cli-internal.h"

#include <jansson.h>

#include "evidence/evidence.h"
#include "evidence/run-record.h"

static const struct cli_opt verify_opts[] = {
        { "json", 0, NULL, "machine-readable output" },
        CLI_OPT_HELP,
        { 0 },
};

static int run_verify(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        json_t *record = NULL;
        size_t failed = 0, i;
        json_t *c;
        int r;
        if ((r = evidence_open_read(ctx->db_path, &ev, reterr)) < 0 ||
            (r = evidence_run_record_json(ev, args->positional[0], &record, reterr)) < 0) {
                if (r == -ENOENT && reterr)
                        reterr->exit = MH_EXIT_CONFIG_ERROR; /* an unknown run: 3, as documented */
                return r;
        }
        json_t *checks = run_verify_json(record, &failed);
        json_decref(record);
        if (!checks)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json")) {
                json_t *out = json_pack(
                        "{s:s, s:b, s:I, s:o}", "run_id", args->positional[0], "ok", failed == 0, "failed",
                        (json_int_t)failed, "checks", checks);
                r = cli_print_json(ctx, out, reterr);
                return r < 0 ? r : failed ? MH_EXIT_GENERAL_FAILURE : 0;
        }
        json_array_foreach(checks, i, c)
                fprintf(ctx->out, "[%s] %s: %s\n", json_is_true(json_object_get(c, "ok")) ? "ok" : "FAIL",
                        json_string_value(json_object_get(c, "check")),
                        json_string_value(json_object_get(c, "detail")));
        fprintf(ctx->out, "%s: %zu of %zu check(s) failed\n", args->positional[0], failed,
                json_array_size(checks));
        json_decref(checks);
        return failed ? MH_EXIT_GENERAL_FAILURE : 0;
}

const struct cli_command cli_verify = {
        .name = "verify",
        .summary = "check that a run's evidence is complete and consistent",
        .usage = "RUN_ID [--json]",
        .help = "One line per check: the run ended, every step finished, the stored plan's sha256\n"
                "equals the run's fingerprint, every lease is closed (or kept faulted on purpose), and\n"
                "every fault sent has its invocation, effect, undo and verify recorded. Read-only.\n"
                "Exit 0 when every check holds, 1 when one fails, 3 for an unknown run or an\n"
                "unreadable evidence database.",
        .opts = verify_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_verify,
};
