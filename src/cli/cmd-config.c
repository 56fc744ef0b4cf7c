#include "cli-config.h"
#include "cli-internal.h"

#include <jansson.h>
#include <string.h>

/* `mayhem prepare config show|validate`: the effective configuration, each
 * key with the layer it came from (docs/configuration.md). */

static const struct cli_opt show_opts[] = {
        { "json", 0, NULL, "{\"keys\": {KEY: {\"value\", \"source\", \"where\"}}, ...}" },
        CLI_OPT_HELP,
        { 0 },
};

static const struct cli_opt validate_opts[] = {
        CLI_OPT_HELP,
        { 0 },
};

static json_t *str_or_null(const char *s) {
        return s ? json_string(s) : json_null();
}

/* The evidence's runs.config_json has the same shape: one writer of it. */
static int show_json(struct cli_ctx *ctx, const struct mayhem_config *c, struct mh_error *reterr) {
        _cleanup_free_ char *text = NULL;
        int r = config_to_json_text(c, &text, reterr);
        if (r < 0)
                return r;
        json_t *j = json_loads(text, 0, NULL);
        if (!j)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "internal",
                        "the configuration did not render as JSON");
        return cli_print_json(ctx, j, reterr);
}

static int run_show(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        const struct mayhem_config *c = ctx->config;
        if (ctx->format == CLI_FORMAT_JSON || cli_arg(ctx, args, "json"))
                return show_json(ctx, c, reterr);
        for (size_t i = 0; i < c->n_origins; i++) {
                const struct config_origin *o = &c->origins[i];
                const char *src = config_source_to_string(o->source);
                if (o->where)
                        fprintf(ctx->out, "%s = %s  (%s%s%s)\n", o->key, o->value, src,
                                o->source == CONFIG_SOURCE_DEFAULT ? ": " : " ", o->where);
                else
                        fprintf(ctx->out, "%s = %s  (%s)\n", o->key, o->value, src);
        }
        return 0;
}

/* The loading itself happened before the command ran (cli_config_prepare):
 * reaching here means every layer was read and checked. */
static int run_validate(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        const struct mayhem_config *c = ctx->config;
        const char *what = c->path ? c->path : "no ./mayhem.yaml, the built-in defaults";
        if (ctx->format == CLI_FORMAT_JSON)
                return cli_print_json(
                        ctx,
                        json_pack(
                                "{s:b, s:o, s:o, s:o}", "ok", true, "file", str_or_null(c->path), "profile",
                                str_or_null(c->profile), "drill", str_or_null(c->drill_path)),
                        reterr);
        if (c->profile)
                fprintf(ctx->out, "config ok: %s (profile %s)\n", what, c->profile);
        else
                fprintf(ctx->out, "config ok: %s\n", what);
        return 0;
}

static const struct cli_command config_show = {
        .name = "show",
        .summary = "print the effective configuration and where each value came from",
        .usage = "[--json]",
        .help = "One line per key: KEY = VALUE  (SOURCE WHERE), the value as JSON; SOURCE is default,\n"
                "file, profile, env or flag and WHERE the FILE:LINE:COL, variable or option that set it.\n"
                "Layers: defaults < ./mayhem.yaml or --config < --profile mayhem.NAME.yaml < "
                "MAYHEM_STORAGE_PATH,\n"
                "MAYHEM_ARTIFACTS_DIR, MAYHEM_LOG_LEVEL < --db, -p (docs/configuration.md).",
        .opts = show_opts,
        .run = run_show,
};

static const struct cli_command config_validate = {
        .name = "validate",
        .summary = "check the configuration (every layer); exit 3 with FILE:LINE:COL when it is wrong",
        .usage = "",
        .help = "Reads ./mayhem.yaml (or --config), the --profile overlay and the environment, checks "
                "every\n"
                "key and value, and prints 'config ok: PATH'. A wrong key or value is one line\n"
                "FILE:LINE:COL: error: ... and exit 3.",
        .opts = validate_opts,
        .run = run_validate,
};

static const struct cli_command *const config_subcommands[] = { &config_show, &config_validate, NULL };

const struct cli_command cli_prepare_config = {
        .name = "config",
        .summary = "show or validate the configuration (mayhem.yaml, profile, environment, flags)",
        .usage = "COMMAND ...",
        .subcommands = config_subcommands,
};
