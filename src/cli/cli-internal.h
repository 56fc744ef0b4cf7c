#pragma once

#include "cli.h"

/* Parses argv (after the command words) into options and positionals.
 * Long options match by exact name or unique prefix; "--" ends options. */
int cli_parse_args(
        struct cli_ctx *ctx, const struct cli_command *cmd, int argc, char **argv, struct cli_args *ret,
        struct mh_error *reterr);
int cli_check_arity(
        struct cli_ctx *ctx, const struct cli_command *cmd, const struct cli_args *args,
        struct mh_error *reterr);
/* The value of option `name` (a flag gives ""), NULL when not given. */
const char *cli_arg(const struct cli_ctx *ctx, const struct cli_args *args, const char *name);
/* Every value of a repeatable option `name`, in order, at most max in ret; returns how many were given. */
size_t cli_arg_all(
        const struct cli_ctx *ctx, const struct cli_args *args, const char *name, const char **ret,
        size_t max);
/* A subcommand of parent by exact name, else unique prefix; an ambiguous
 * prefix is exit 10 (ambiguous_command), an unknown word exit 2. */
int cli_command_resolve(
        struct cli_ctx *ctx, const struct cli_command *parent, const char *word,
        const struct cli_command **ret, struct mh_error *reterr);
void cli_print_help(const struct cli_ctx *ctx, const struct cli_command *cmd);

/* The option every command takes. */
#define CLI_OPT_HELP                                                                                        \
        { "help", 'h', NULL, "show this help" }
