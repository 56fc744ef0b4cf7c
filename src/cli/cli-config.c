#include "cli-config.h"

#include <string.h>

static struct config_request request_of(const struct cli_ctx *ctx) {
        return (struct config_request){
                .config_path = ctx->config_path,
                .profile = ctx->profile,
                .target = ctx->target,
                .db_path = ctx->db_given ? ctx->db_path : NULL,
                .podman = ctx->podman_given,
        };
}

int cli_config_prepare(struct cli_ctx *ctx, struct mh_error *reterr) {
        struct config_request req = request_of(ctx);
        if (ctx->config)
                return 0;
        int r = config_load(&req, &ctx->config, reterr);
        if (r < 0)
                return r;
        if (!ctx->db_given)
                ctx->db_path = ctx->config->storage_path;
        ctx->podman = strcmp(ctx->config->runtime, "podman") == 0;
        for (size_t i = 0; i < ctx->config->n_warnings; i++)
                cli_print_warning(ctx, ctx->config->warnings[i]);
        return 0;
}

int cli_spec_path(
        struct cli_ctx *ctx, const struct cli_args *args, const char **ret, struct mh_error *reterr) {
        if (args->n_positional > 0) {
                *ret = args->positional[0];
                return 0;
        }
        int r = cli_config_prepare(ctx, reterr);
        if (r < 0)
                return r;
        if (!ctx->config->drill_path)
                return cli_usage_error(
                        reterr, ctx,
                        "SPEC is missing: name a drill file, or give --config a file with kind: drill");
        *ret = ctx->config->drill_path;
        return 0;
}
