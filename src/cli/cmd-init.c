#include "cli-internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/mayhem-config.h"
#include "init-drill.h"

static const struct cli_opt init_opts[] = {
        { "compose", 'c', "COMPOSE",
          "compose file (default: compose.yaml, compose.yml, docker-compose.yml or "
          "docker-compose.yaml in the working directory)" },
        { "output", 'o', "FILE",
          "write the drill to FILE (which must not exist) instead of standard output" },
        CLI_OPT_HELP,
        { 0 },
};

static void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

/* A new file only: a starter drill never replaces a drill someone edited. */
static int open_output(const char *path, FILE **ret, struct mh_error *reterr) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
                return mh_error_set(
                        reterr, -errno, MH_EXIT_GENERAL_FAILURE, "output",
                        "%s exists; not overwritten (remove it or name another file)", path);
        if (fd < 0)
                return mh_error_set(
                        reterr, -errno, MH_EXIT_GENERAL_FAILURE, "output", "cannot create %s: %s", path,
                        strerror(errno));
        FILE *f = fdopen(fd, "w");
        if (!f) {
                int r = -errno;
                close(fd);
                return mh_error_set(reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        }
        *ret = f;
        return 0;
}

static int run_init(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        _cleanup_(topology_freep) struct topology *t = NULL;
        _cleanup_free_ char *found = NULL;
        _cleanup_(fclosep) FILE *file = NULL;
        const char *compose = cli_arg(ctx, args, "compose"), *output = cli_arg(ctx, args, "output");
        int r;

        if (!compose) {
                if ((r = compose_find_default(".", &found, reterr)) < 0)
                        return r == -ENOENT
                                       ? mh_error_set(
                                                 reterr, r, MH_EXIT_VALIDATION_ERROR, "compose_not_found",
                                                 "no compose file in the current directory (looked for "
                                                 "compose.yaml, compose.yml, docker-compose.yml and "
                                                 "docker-compose.yaml); name one with -c FILE")
                                       : r;
                compose = found;
        }
        if ((r = compose_load(compose, &t, reterr)) < 0)
                return r;
        for (size_t i = 0; i < t->n_warnings; i++)
                cli_print_warning(ctx, t->warnings[i]);
        if (output && (r = open_output(output, &file, reterr)) < 0)
                return r;
        r = init_drill_write(
                file ? file : ctx->out, t, compose, ctx->config->blast_radius.max_services_pct, reterr);
        if (r >= 0 && file && fclose(TAKE_PTR(file)) != 0)
                r = mh_error_set(
                        reterr, -errno, MH_EXIT_GENERAL_FAILURE, "io", "cannot write %s: %s", output,
                        strerror(errno));
        if (r < 0 && output)
                unlink(output); /* no half-written drill left behind */
        else if (output)
                fprintf(ctx->err,
                        "mayhem init: wrote %s; check it with `mayhem prepare validate %s -c %s`\n", output,
                        output, compose);
        return r;
}

const struct cli_command cli_init = {
        .name = "init",
        .summary = "write a commented starter drill for a compose stack",
        .usage = "[-c COMPOSE] [-o FILE]",
        .help = "Reads the compose file and writes a drill with one low-risk fault per service (on its\n"
                "first container), a tcp check from this host on every published tcp port before and\n"
                "after the faults, and a criterion on each check. It validates as written:\n"
                "  mayhem init -c compose.yaml -o drill.yaml && mayhem prepare validate drill.yaml -c "
                "compose.yaml",
        .opts = init_opts,
        .run = run_init,
};
