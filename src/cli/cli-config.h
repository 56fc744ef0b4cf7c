#pragma once

#include "cli.h"
#include "config/mayhem-config.h"

/* The effective configuration of this command line (--config, --profile,
 * --target, --db, -p, the environment) into ctx->config, loaded once before
 * any command runs (exit 3 on a bad file); applies storage.path (unless --db)
 * and runtime to ctx and prints the configuration's warnings. */
int cli_config_prepare(struct cli_ctx *ctx, struct mh_error *reterr);

/* The drill a command takes as SPEC: the positional argument, else the
 * --config file when it is a kind: drill document; usage error otherwise. */
int cli_spec_path(
        struct cli_ctx *ctx, const struct cli_args *args, const char **ret, struct mh_error *reterr);
