#include "cli-internal.h"

#include <string.h>

/* Finds an option by exact long name or unique prefix. -ENOENT unknown, -EEXIST ambiguous. */
static int find_long(const struct cli_opt *opts, const char *name, size_t len, size_t *ret) {
        size_t hits = 0, hit = 0;
        for (size_t i = 0; opts && opts[i].name; i++) {
                if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) {
                        *ret = i;
                        return 0;
                }
                if (strncmp(opts[i].name, name, len) == 0)
                        hits++, hit = i;
        }
        if (hits == 1) {
                *ret = hit;
                return 0;
        }
        return hits ? -EEXIST : -ENOENT;
}

static int find_short(const struct cli_opt *opts, char c, size_t *ret) {
        for (size_t i = 0; opts && opts[i].name; i++)
                if (opts[i].short_name == c) {
                        *ret = i;
                        return 0;
                }
        return -ENOENT;
}

static int take_value(
        struct cli_ctx *ctx, const struct cli_opt *o, const char *inline_value, int *i, int argc,
        char **argv, const char **ret, struct mh_error *reterr) {
        if (!o->arg) {
                if (inline_value)
                        return cli_usage_error(reterr, ctx, "option --%s takes no value", o->name);
                *ret = "";
                return 0;
        }
        if (inline_value) {
                *ret = inline_value;
                return 0;
        }
        if (*i + 1 >= argc)
                return cli_usage_error(reterr, ctx, "option --%s needs a value (%s)", o->name, o->arg);
        *ret = argv[++*i];
        return 0;
}

static int parse_one_option(
        struct cli_ctx *ctx, const struct cli_opt *opts, int *i, int argc, char **argv, struct cli_args *ret,
        struct mh_error *reterr) {
        const char *a = argv[*i], *eq = NULL;
        size_t idx = 0;
        int r;

        if (a[1] == '-') {
                const char *name = a + 2;
                eq = strchr(name, '=');
                r = find_long(opts, name, eq ? (size_t)(eq - name) : strlen(name), &idx);
                if (r == -EEXIST)
                        return cli_usage_error(reterr, ctx, "option '%s' is ambiguous", a);
        } else {
                r = a[2] == '\0' ? find_short(opts, a[1], &idx) : -ENOENT;
        }
        if (r < 0)
                return cli_usage_error(reterr, ctx, "unknown option '%s'", a);
        if (ret->n_given >= CLI_GIVEN_MAX)
                return cli_usage_error(reterr, ctx, "more than %d options", CLI_GIVEN_MAX);
        if ((r = take_value(ctx, &opts[idx], eq ? eq + 1 : NULL, i, argc, argv, &ret->values[idx], reterr)) <
            0)
                return r;
        ret->given[ret->n_given].opt = idx;
        ret->given[ret->n_given++].value = ret->values[idx];
        return 0;
}

int cli_parse_args(
        struct cli_ctx *ctx, const struct cli_command *cmd, int argc, char **argv, struct cli_args *ret,
        struct mh_error *reterr) {
        bool options_done = false;
        int r;

        *ret = (struct cli_args){ .positional = argv };
        for (int i = 0; i < argc; i++) {
                const char *a = argv[i];
                if (!options_done && strcmp(a, "--") == 0) {
                        options_done = true;
                        continue;
                }
                if (!options_done && a[0] == '-' && a[1] != '\0') {
                        if ((r = parse_one_option(ctx, cmd->opts, &i, argc, argv, ret, reterr)) < 0)
                                return r;
                        continue;
                }
                argv[ret->n_positional++] = argv[i];
        }
        return 0;
}

int cli_check_arity(
        struct cli_ctx *ctx, const struct cli_command *cmd, const struct cli_args *args,
        struct mh_error *reterr) {
        if (args->n_positional < cmd->min_args)
                return cli_usage_error(
                        reterr, ctx, "missing argument: usage: %s %s", ctx->command_path, cmd->usage);
        if (args->n_positional > cmd->max_args)
                return cli_usage_error(
                        reterr, ctx, "unexpected argument '%s': usage: %s %s",
                        args->positional[cmd->max_args], ctx->command_path, cmd->usage);
        return 0;
}

const char *cli_arg(const struct cli_ctx *ctx, const struct cli_args *args, const char *name) {
        const struct cli_command *cmd = ctx->command;
        for (size_t i = 0; cmd->opts && cmd->opts[i].name; i++)
                if (strcmp(cmd->opts[i].name, name) == 0)
                        return args->values[i];
        return NULL;
}

size_t cli_arg_all(
        const struct cli_ctx *ctx, const struct cli_args *args, const char *name, const char **ret,
        size_t max) {
        const struct cli_command *cmd = ctx->command;
        size_t n = 0;
        for (size_t i = 0; cmd->opts && cmd->opts[i].name; i++)
                if (strcmp(cmd->opts[i].name, name) == 0)
                        for (size_t g = 0; g < args->n_given; g++)
                                if (args->given[g].opt == i && n++ < max)
                                        ret[n - 1] = args->given[g].value;
        return n;
}
