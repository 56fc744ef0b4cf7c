#pragma once

#include "cli.h"
#include "config/mayhem-config.h"

/* The effective configuration of this command line (--config, --profile,
 * --target, --db, -p, the environment): exit 3 on a bad file. When --db was
 * not given, ctx->db_path becomes storage.path. */
int cli_config_load(struct cli_ctx *ctx, struct mayhem_config **ret, struct mh_error *reterr);
