/* `mayhem inspect report RUN_ID --format json|junit|html|md [-o FILE]`: a
 * run's report from the evidence, read-only (report/report.h). */

#include "cli-internal.h"
#include "report-out.h"

#include <jansson.h>
#include <string.h>

#include "evidence/evidence.h"
#include "evidence/run-record.h"

static const struct cli_opt inspect_report_opts[] = {
        { "format", 'f', "json|junit|html|md", "the report's format (default json)" },
        { "output", 'o', "FILE", "write it to FILE (FILE.tmp, then renamed) instead of stdout" },
        CLI_OPT_HELP,
        { 0 },
};

static int run_inspect_report(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        const char *format = cli_arg(ctx, args, "format"), *path = cli_arg(ctx, args, "output");
        int f = report_format_from_string(format ? format : "json");
        json_t *record = NULL;
        int r;
        if (f < 0)
                return cli_usage_error(
                        reterr, ctx, "--format takes json, junit, html or md, not '%s'", format);
        if (path && !path[0])
                return cli_usage_error(reterr, ctx, "-o takes a file name, not an empty one");
        if ((r = evidence_open_read(ctx->db_path, &ev, reterr)) < 0 ||
            (r = evidence_run_record_json(ev, args->positional[0], &record, reterr)) < 0)
                return r;
        r = path ? report_file_write(path, (enum report_format)f, record, reterr)
                 : report_write(ctx->out, (enum report_format)f, record, reterr);
        json_decref(record);
        return r;
}

const struct cli_command cli_inspect_report = {
        .name = "report",
        .summary = "one run's report: JSON (mayhem.report/1), JUnit XML, HTML or Markdown",
        .usage = "RUN_ID [--format json|junit|html|md] [-o FILE]",
        .help = "Reads the evidence database without writing to it and prints the run's report, or writes\n"
                "it to FILE. An unknown run exits 4, as `inspect run` does; a FILE that cannot be written\n"
                "exits 3. The formats: docs/report-format.md.",
        .opts = inspect_report_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_inspect_report,
};
