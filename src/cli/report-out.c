#include "report-out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "evidence/evidence.h"
#include "evidence/run-record.h"

int report_outs_parse(
        const struct cli_ctx *ctx, const struct cli_args *args, struct report_out *ret, size_t *ret_n,
        struct mh_error *reterr) {
        const char *specs[REPORT_OUTS_MAX];
        size_t n = cli_arg_all(ctx, args, "report", specs, REPORT_OUTS_MAX);
        if (n > REPORT_OUTS_MAX)
                return mh_error_set(
                        reterr, -E2BIG, MH_EXIT_VALIDATION_ERROR, "report", "--report: at most %d reports",
                        REPORT_OUTS_MAX);
        for (size_t i = 0; i < n; i++) {
                const char *eq = strchr(specs[i], '=');
                char format[16];
                int f = -EINVAL;
                if (eq && (size_t)(eq - specs[i]) < sizeof(format)) {
                        snprintf(format, sizeof(format), "%.*s", (int)(eq - specs[i]), specs[i]);
                        f = report_format_from_string(format);
                }
                if (f < 0)
                        return mh_error_set(
                                reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "report",
                                "--report '%s': wanted FORMAT=FILE, FORMAT one of json, junit, html, md",
                                specs[i]);
                if (!eq[1])
                        return mh_error_set(
                                reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "report",
                                "--report '%s': the file name is empty", specs[i]);
                ret[i] = (struct report_out){ .format = (enum report_format)f, .path = eq + 1 };
        }
        *ret_n = n;
        return 0;
}

static int file_error(struct mh_error *reterr, int code, const char *what, const char *path) {
        return mh_error_set(
                reterr, code, MH_EXIT_CONFIG_ERROR, "report", "report: cannot %s %s: %s", what, path,
                strerror(-code));
}

int report_file_write(
        const char *path, enum report_format f, const json_t *record, struct mh_error *reterr) {
        char tmp[4096];
        if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
                return file_error(reterr, -ENAMETOOLONG, "write", path);
        FILE *out = fopen(tmp, "we");
        if (!out)
                return file_error(reterr, -errno, "write", tmp);
        int r = report_write(out, f, record, reterr);
        if (r >= 0 && (fflush(out) != 0 || fsync(fileno(out)) < 0))
                r = file_error(reterr, -errno, "write", tmp);
        if (fclose(out) != 0 && r >= 0)
                r = file_error(reterr, -errno, "write", tmp);
        if (r >= 0 && rename(tmp, path) < 0)
                r = file_error(reterr, -errno, "rename into", path);
        if (r < 0)
                unlink(tmp);
        return r;
}

int report_outs_write(
        const struct cli_ctx *ctx, struct evidence *ev, const char *run_id, const struct report_out *outs,
        size_t n, struct mh_error *reterr) {
        json_t *record = NULL;
        int r = 0;
        if (n == 0)
                return 0;
        if ((r = evidence_run_record_json(ev, run_id, &record, reterr)) < 0)
                return r;
        for (size_t i = 0; r >= 0 && i < n; i++)
                if ((r = report_file_write(outs[i].path, outs[i].format, record, reterr)) >= 0)
                        fprintf(ctx->err, "%s report: %s\n", report_format_to_string(outs[i].format),
                                outs[i].path);
        json_decref(record);
        return r;
}
