#include "cli-internal.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/strv.h"
#include "basic/suggest.h"
#include "cli-config.h"
#include "completion.h"
#include "config.h"

static const struct cli_opt root_opts[] = {
        { "db", 0, "PATH", "SQLite evidence file (default mayhem.db, or storage.path of the config)" },
        { "config", 0, "PATH",
          "configuration file (default ./mayhem.yaml); a kind: drill file is also the spec" },
        { "profile", 0, "NAME", "overlay mayhem.NAME.yaml from beside the configuration file" },
        { "policy", 0, "NAME", "named safety policy profile (docs/safety.md)" },
        { "target", 0, "NAME", "target profile of the configuration (targets:)" },
        { "dry-run", 0, NULL, "evaluate every safety gate and print each decision; touch nothing" },
        { "allow-critical", 0, NULL, "the command-line half of the critical triple opt-in" },
        { "skip-gate", 0, NULL, "break-glass: attempt faults the impact gate would bypass" },
        { "format", 0, "text|json", "output format; JSON errors go to stderr" },
        { "no-color", 0, NULL, "no colours (also when NO_COLOR is set)" },
        { "podman", 'p', NULL, "use Podman's socket instead of Docker's" },
        { "debug", 'd', NULL, "more detail on errors" },
        { "version", 0, NULL, "print the version and exit" },
        CLI_OPT_HELP,
        { 0 },
};
enum {
        ROOT_DB,
        ROOT_CONFIG,
        ROOT_PROFILE,
        ROOT_POLICY,
        ROOT_TARGET,
        ROOT_DRY_RUN,
        ROOT_ALLOW_CRITICAL,
        ROOT_SKIP_GATE,
        ROOT_FORMAT,
        ROOT_NO_COLOR,
        ROOT_PODMAN,
        ROOT_DEBUG,
        ROOT_VERSION,
        ROOT_HELP
};

static const struct cli_command *const root_subcommands[] = {
        &cli_discover, &cli_prepare, &cli_run,  &cli_maniac,     &cli_inspect, &cli_verify,
        &cli_recover,  &cli_janitor, &cli_init, &cli_completion, &cli_doctor,  NULL,
};

static const struct cli_command cli_root = {
        .name = "mayhem",
        .usage = "[OPTIONS] COMMAND ...",
        .help = "mayhem plans a chaos drill, injects real faults into containers, watches, undoes every\n"
                "fault, proves the undo took, and gives a verdict with evidence in SQLite.\n"
                "Options go before the command. Exit codes: 0 ok, 1 failure, 2 usage, 3 config,\n"
                "4 validation, 5 safety refusal, 6 run incomplete, 7 left dirty, 10 ambiguous command.",
        .opts = root_opts,
        .subcommands = root_subcommands,
};

const struct cli_command *cli_root_command(void) {
        return &cli_root;
}

int cli_command_resolve(
        struct cli_ctx *ctx, const struct cli_command *parent, const char *word,
        const struct cli_command **ret, struct mh_error *reterr) {
        const char *names[32];
        char matches[256] = "";
        size_t n = 0, hits = 0, len = strlen(word);
        const struct cli_command *hit = NULL;

        for (; parent->subcommands[n] && n < ELEMENTSOF(names); n++) {
                const struct cli_command *c = parent->subcommands[n];
                names[n] = c->name;
                if (strcmp(c->name, word) == 0) {
                        *ret = c;
                        return 0;
                }
                if (strncmp(c->name, word, len) == 0) {
                        size_t used = strlen(matches);
                        snprintf(matches + used, sizeof(matches) - used, "%s%s", hits ? ", " : "", c->name);
                        hits++;
                        hit = c;
                }
        }
        if (hits == 1) {
                *ret = hit;
                return 0;
        }
        if (hits > 1)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_AMBIGUOUS_COMMAND, "ambiguous_command",
                        "'%s' is ambiguous in '%s': it matches %s", word, ctx->command_path, matches);
        const char *near = suggest_closest(word, names, n);
        if (near)
                return cli_usage_error(reterr, ctx, "unknown command '%s' (did you mean '%s'?)", word, near);
        return cli_usage_error(reterr, ctx, "unknown command '%s'", word);
}

static int apply_root_options(struct cli_ctx *ctx, const struct cli_args *a, struct mh_error *reterr) {
        const char *format = a->values[ROOT_FORMAT];
        if (a->values[ROOT_NO_COLOR]) {
                setenv("NO_COLOR", "1", 1);
                ctx->color = false;
        }
        if (format && strcmp(format, "json") == 0)
                ctx->format = CLI_FORMAT_JSON;
        else if (format && strcmp(format, "text") != 0)
                return cli_usage_error(reterr, ctx, "--format takes text or json, not '%s'", format);
        if (a->values[ROOT_DB])
                ctx->db_path = a->values[ROOT_DB];
        ctx->db_given = a->values[ROOT_DB] != NULL;
        ctx->config_path = a->values[ROOT_CONFIG];
        ctx->profile = a->values[ROOT_PROFILE];
        ctx->policy = a->values[ROOT_POLICY];
        ctx->target = a->values[ROOT_TARGET];
        ctx->dry_run = a->values[ROOT_DRY_RUN];
        ctx->allow_critical = a->values[ROOT_ALLOW_CRITICAL];
        ctx->skip_gate = a->values[ROOT_SKIP_GATE];
        ctx->podman = ctx->podman_given = a->values[ROOT_PODMAN];
        ctx->debug = a->values[ROOT_DEBUG];
        return 0;
}

/* Root options stop at the first word that is not an option: the command. */
static int split_root(int argc, char **argv) {
        int i = 1;
        for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
                const char *a = argv[i];
                static const char *const with_value[] = { "--db",     "--format", "--config", "--profile",
                                                          "--policy", "--target", NULL };
                bool takes_value = strv_contains(with_value, a);
                if (takes_value && i + 1 < argc)
                        i++;
        }
        return i;
}

static int run_leaf(
        struct cli_ctx *ctx, const struct cli_command *cmd, int argc, char **argv, struct mh_error *reterr) {
        struct cli_args args;
        int r = cli_parse_args(ctx, cmd, argc, argv, &args, reterr);
        if (r < 0)
                return r;
        if (cli_arg(ctx, &args, "help")) {
                cli_print_help(ctx, cmd);
                return 0;
        }
        if ((r = cli_check_arity(ctx, cmd, &args, reterr)) < 0)
                return r;
        /* Every command sees the same configuration: a bad mayhem.yaml is
         * exit 3 before anything runs, and --db / storage.path is settled. */
        if (cli_arg(ctx, &args, "target")) /* `run --target NAME`, as the root option */
                ctx->target = cli_arg(ctx, &args, "target");
        if ((r = cli_config_prepare(ctx, reterr)) < 0)
                return r;
        return cmd->run(ctx, &args, reterr);
}

static int dispatch(
        struct cli_ctx *ctx, const struct cli_command *cmd, int argc, char **argv, char *path,
        size_t path_size, struct mh_error *reterr) {
        for (;;) {
                ctx->command = cmd;
                ctx->command_path = path;
                if (!cmd->subcommands)
                        return run_leaf(ctx, cmd, argc, argv, reterr);
                if (argc == 0)
                        return cli_usage_error(reterr, ctx, "'%s' needs a command", path);
                if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
                        cli_print_help(ctx, cmd);
                        return 0;
                }
                const struct cli_command *next = NULL;
                int r = cli_command_resolve(ctx, cmd, argv[0], &next, reterr);
                if (r < 0 && cmd->legacy_run_ids && reterr->exit == MH_EXIT_USAGE_ERROR &&
                    strncmp(argv[0], "r-", 2) == 0) {
                        *reterr = (struct mh_error){ 0 };
                        cmd = cmd->legacy_run_ids; /* the run ids stay its positionals */
                        continue;
                }
                if (r < 0)
                        return r;
                size_t used = strlen(path);
                snprintf(path + used, path_size - used, " %s", next->name);
                cmd = next;
                argc--;
                argv++;
        }
}

static int cli_main_run(struct cli_ctx *ctx, int argc, char **argv, struct mh_error *reterr) {
        char path[256] = "mayhem";
        struct cli_args root_args;
        int split = split_root(argc, argv), r;

        ctx->command = &cli_root;
        ctx->command_path = path;
        r = cli_parse_args(ctx, &cli_root, split - 1, argv + 1, &root_args, reterr);
        if (r < 0 || (r = apply_root_options(ctx, &root_args, reterr)) < 0)
                return r;
        if (root_args.values[ROOT_VERSION]) {
                fprintf(ctx->out, "mayhem %s\n", MAYHEM_VERSION);
                return 0;
        }
        if (root_args.values[ROOT_HELP] || split >= argc) {
                cli_print_help(ctx, &cli_root);
                return root_args.values[ROOT_HELP] ? 0 : cli_usage_error(reterr, ctx, "no command given");
        }
        return dispatch(ctx, &cli_root, argc - split, argv + split, path, sizeof(path), reterr);
}

int cli_main(int argc, char **argv) {
        struct cli_ctx ctx = {
                .format = CLI_FORMAT_TEXT,
                .db_path = "mayhem.db",
                .out = stdout,
                .err = stderr,
        };
        struct mh_error e = { 0 };
        /* An agent that dies while a request is written to it is an EPIPE to
         * handle (undo, recover), not a signal that ends the controller with
         * faults in force. */
        signal(SIGPIPE, SIG_IGN);
        ctx.color = isatty(fileno(ctx.err)) && !getenv("NO_COLOR");
        int r = cli_main_run(&ctx, argc, argv, &e);
        if (fflush(ctx.out) != 0 && r >= 0)
                r = mh_error_set(&e, -EIO, MH_EXIT_GENERAL_FAILURE, "io", "cannot write to standard output");
        if (r < 0)
                cli_print_error(&ctx, &e);
        ctx.db_path = NULL; /* may point into the configuration */
        ctx.config = config_free(ctx.config);
        if (r >= 0)
                return r; /* a command may return a non-zero exit code that is not an error */
        return e.exit ? (int)e.exit : MH_EXIT_GENERAL_FAILURE;
}
