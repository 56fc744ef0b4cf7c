#include "cli-internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#define COLOR_ERROR   "\033[1;31m"
#define COLOR_WARNING "\033[1;33m"
#define COLOR_RESET   "\033[0m"

static void label(const struct cli_ctx *ctx, const char *color, const char *word) {
        if (ctx->color)
                fprintf(ctx->err, "%s%s:%s", color, word, COLOR_RESET);
        else
                fprintf(ctx->err, "%s:", word);
}

static void print_error_json(const struct cli_ctx *ctx, const struct mh_error *e) {
        json_t *o = json_pack(
                "{s:{s:s, s:s, s:i}}", "error", "code", e->id[0] ? e->id : "error", "message", e->msg,
                "exit", (int)e->exit);
        if (!o)
                return;
        json_t *err = json_object_get(o, "error");
        if (e->remediation[0])
                json_object_set_new(err, "remediation", json_string(e->remediation));
        if (mh_error_has_location(e)) {
                json_object_set_new(err, "file", json_string(e->path));
                json_object_set_new(err, "line", json_integer(e->line));
                json_object_set_new(err, "col", json_integer(e->col));
        }
        json_dumpf(o, ctx->err, JSON_COMPACT | JSON_SORT_KEYS);
        fputc('\n', ctx->err);
        json_decref(o);
}

void cli_print_error(const struct cli_ctx *ctx, const struct mh_error *e) {
        if (ctx->format == CLI_FORMAT_JSON) {
                print_error_json(ctx, e);
                return;
        }
        if (mh_error_has_location(e))
                fprintf(ctx->err, "%s:%u:%u: ", e->path, e->line, e->col);
        label(ctx, COLOR_ERROR, "error");
        if (strcmp(e->id, "safety_refusal") ==
            0) /* the reference's "error: safety refused: ... [safety_refusal]" */
                fprintf(ctx->err, " %s [%s]\n", e->msg, e->id);
        else {
                if (!mh_error_has_location(e) && e->id[0] && strcmp(e->id, "validation") != 0)
                        fprintf(ctx->err, " [%s]", e->id);
                fprintf(ctx->err, " %s\n", e->msg);
        }
        if (e->remediation[0])
                fprintf(ctx->err, "  remediation: %s\n", e->remediation);
}

void cli_print_warning(const struct cli_ctx *ctx, const char *msg) {
        if (ctx->format == CLI_FORMAT_JSON)
                return; /* JSON output carries warnings in its own object */
        label(ctx, COLOR_WARNING, "warning");
        fprintf(ctx->err, " %s\n", msg);
}

int cli_print_json(const struct cli_ctx *ctx, void *j, struct mh_error *reterr) {
        json_t *o = j;
        if (!o)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        int r = json_dumpf(o, ctx->out, JSON_INDENT(2) | JSON_SORT_KEYS);
        json_decref(o);
        fputc('\n', ctx->out);
        if (r < 0)
                return mh_error_set(reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "io", "cannot write output");
        return 0;
}

int cli_usage_error(struct mh_error *reterr, const struct cli_ctx *ctx, const char *fmt, ...) {
        char msg[MH_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return mh_error_set(
                reterr, -EINVAL, MH_EXIT_USAGE_ERROR, "usage", "%s (see '%s --help')", msg,
                ctx->command_path);
}

static void print_opts(FILE *f, const struct cli_opt *opts) {
        for (size_t i = 0; opts && opts[i].name; i++) {
                char left[64];
                const struct cli_opt *o = &opts[i];
                if (o->short_name)
                        snprintf(
                                left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
                                o->arg ? " " : "", o->arg ? o->arg : "");
                else
                        snprintf(
                                left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
                                o->arg ? o->arg : "");
                fprintf(f, "  %-28s %s\n", left, o->help);
        }
}

void cli_print_help(const struct cli_ctx *ctx, const struct cli_command *cmd) {
        FILE *f = ctx->out;
        fprintf(f, "Usage: %s %s\n", ctx->command_path, cmd->usage ? cmd->usage : "");
        if (cmd->help)
                fprintf(f, "\n%s\n", cmd->help);
        if (cmd->subcommands) {
                fprintf(f, "\nCommands (any unique prefix works):\n");
                for (size_t i = 0; cmd->subcommands[i]; i++)
                        fprintf(f, "  %-12s %s\n", cmd->subcommands[i]->name, cmd->subcommands[i]->summary);
        }
        if (cmd->opts && cmd->opts[0].name) {
                fprintf(f, "\nOptions:\n");
                print_opts(f, cmd->opts);
        }
}

void cli_print_line(void *userdata, const char *line) {
        FILE *f = userdata;
        fprintf(f, "%s\n", line);
        fflush(f);
}
