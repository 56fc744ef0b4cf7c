#include "cli-internal.h"

#include "completion.h"

static const struct cli_opt completion_opts[] = {
        CLI_OPT_HELP,
        { 0 },
};

static int run_completion(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        int shell = completion_shell_from_string(args->positional[0]);
        if (shell < 0)
                return cli_usage_error(
                        reterr, ctx, "completion takes bash, zsh or fish, not '%s'", args->positional[0]);
        completion_write(ctx->out, cli_root_command(), (enum completion_shell)shell);
        return 0;
}

const struct cli_command cli_completion = {
        .name = "completion",
        .summary = "print a shell completion script (bash, zsh or fish)",
        .usage = "bash|zsh|fish",
        .help = "Prints a completion script made from mayhem's own command table. For this shell only:\n"
                "  source <(mayhem completion bash)\n"
                "`meson install` puts the three scripts where bash-completion, zsh and fish look.",
        .opts = completion_opts,
        .min_args = 1,
        .max_args = 1,
        .run = run_completion,
};
