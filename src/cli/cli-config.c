#include "cli-config.h"

/* Until the loader lands: the built-in defaults. */
int cli_config_load(struct cli_ctx *ctx, struct mayhem_config **ret, struct mh_error *reterr) {
        (void)ctx;
        return config_defaults(ret, reterr);
}
