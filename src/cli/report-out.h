#pragma once

/* Report files: `--report FORMAT=FILE` on run and maniac (repeatable), and
 * `inspect report -o FILE`. A file is written whole to FILE.tmp, then
 * renamed into place, so a reader (a CI job) never sees half of one. */

#include <jansson.h>

#include "cli-internal.h"
#include "report/report.h"

#define REPORT_OUTS_MAX 16

struct report_out {
        enum report_format format;
        const char *path;
};

/* The command's --report values: FORMAT one of report_format, FILE not
 * empty; anything else exit 4 before anything runs. */
int report_outs_parse(
        const struct cli_ctx *ctx, const struct cli_args *args, struct report_out *ret, size_t *ret_n,
        struct mh_error *reterr);

/* The report of record to path (FILE.tmp, then rename). Exit 3 when the
 * file cannot be written; the writer's own error else (the tmp file gone). */
int report_file_write(const char *path, enum report_format f, const json_t *record, struct mh_error *reterr);

/* Each of outs from run_id's record in the open evidence; the path of
 * each written file on ctx->err. Stops at the first that fails. */
struct evidence;
int report_outs_write(
        const struct cli_ctx *ctx, struct evidence *ev, const char *run_id, const struct report_out *outs,
        size_t n, struct mh_error *reterr);
