#pragma once

/* The `mayhem` command line: a tree of commands, each resolved by exact name
 * or unique prefix (`mayhem prep val`), as the reference does; an ambiguous
 * prefix exits 10. Only this layer (and agent/) prints or exits. */

#include <stdbool.h>
#include <stdio.h>

#include "basic/error.h"

enum cli_format {
        CLI_FORMAT_TEXT,
        CLI_FORMAT_JSON,
};

struct mayhem_config;

struct cli_ctx {
        enum cli_format format;
        bool color;
        bool debug;
        bool podman;
        bool podman_given; /* -p was given: it beats runtime */
        const char *db_path;
        bool db_given;           /* --db was given: it beats storage.path */
        const char *config_path; /* --config */
        const char *profile;     /* --profile */
        const char *policy;      /* --policy */
        const char *target;      /* --target */
        bool dry_run, allow_critical, skip_gate;
        struct mayhem_config *config;      /* loaded before a command runs (cli-config.h); owned here */
        const char *command_path;          /* "mayhem prepare plan", for messages */
        const struct cli_command *command; /* the command being run */
        FILE *out, *err;
};

#define CLI_OPTS_MAX 24

struct cli_opt {
        const char *name; /* long name without "--" */
        char short_name;  /* 0 when none */
        const char *arg;  /* metavariable, NULL for a flag */
        const char *help;
};

#define CLI_GIVEN_MAX 64 /* option values given on one command line */

struct cli_args {
        const char *values[CLI_OPTS_MAX]; /* by option index; "" for a given flag, NULL when absent */
        struct {
                size_t opt; /* option index */
                const char *value;
        } given[CLI_GIVEN_MAX]; /* every option in the order given: a repeatable one's values */
        size_t n_given;
        char **positional;
        size_t n_positional;
};

struct cli_command {
        const char *name;
        const char *summary;
        const char *usage;                            /* after the command path: "SPEC [-c COMPOSE]" */
        const char *help;                             /* paragraphs shown by --help */
        const struct cli_opt *opts;                   /* NULL-name terminated, or NULL */
        size_t min_args, max_args;                    /* positional */
        const struct cli_command *const *subcommands; /* NULL-terminated, or NULL */
        /* A leaf run with the words as they are when the first is no
         * subcommand but a run id ("r-..."): the legacy `recover RUN_ID`. */
        const struct cli_command *legacy_run_ids;
        int (*run)(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr);
};

/* Entry point from main(): returns the process exit code. */
int cli_main(int argc, char **argv);

/* Errors and warnings, in the user's format. */
void cli_print_error(const struct cli_ctx *ctx, const struct mh_error *e);
void cli_print_warning(const struct cli_ctx *ctx, const char *msg);
/* Pretty JSON (indent 2, sorted keys) to ctx->out; steals j. */
int cli_print_json(const struct cli_ctx *ctx, void *j, struct mh_error *reterr);
/* A progress callback of run/ (recovery, the janitor): line and a newline on userdata, a FILE *. */
void cli_print_line(void *userdata, const char *line);

int cli_usage_error(struct mh_error *reterr, const struct cli_ctx *ctx, const char *fmt, ...) _printf_(3, 4);

extern const struct cli_command cli_discover;
extern const struct cli_command cli_prepare;
extern const struct cli_command cli_prepare_config; /* cmd-config.c */
extern const struct cli_command cli_run;
extern const struct cli_command cli_maniac;
extern const struct cli_command cli_inspect;
extern const struct cli_command cli_inspect_run; /* cmd-inspect-run.c */
extern const struct cli_command cli_verify;
extern const struct cli_command cli_recover;
extern const struct cli_command cli_janitor;
extern const struct cli_command cli_init;       /* cmd-init.c */
extern const struct cli_command cli_completion; /* cmd-completion.c */

extern const struct cli_command cli_inspect_report; /* cmd-inspect-report.c */
extern const struct cli_command cli_doctor;         /* cmd-doctor.c */
