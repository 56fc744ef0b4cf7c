#include "cli-inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A drill whose targets are all host processes needs no compose file. */
static bool needs_compose(const struct drill_spec *s) {
        for (size_t i = 0; i < s->n_targets; i++)
                if (s->targets[i].runtime != TARGET_RUNTIME_PROCESS)
                        return true;
        return false;
}

static bool same_directory(const char *a, const char *b) {
        _cleanup_free_ char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
        return ra && rb && strcmp(ra, rb) == 0;
}

/* compose.yaml & co. in the working directory, else next to the drill, as a
 * drill kept beside its stack is run from anywhere. */
static int find_compose(const char *spec_path, char **ret, struct mh_error *reterr) {
        int r = compose_find_default(".", ret, reterr);
        if (r != -ENOENT)
                return r;
        _cleanup_free_ char *dir = strdup(spec_path);
        if (!dir)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        char *slash = strrchr(dir, '/');
        if (!slash)
                return r;
        slash[slash == dir] = '\0'; /* "/x.yaml" lives in "/" */
        if (same_directory(dir, "."))
                return r;
        r = compose_find_default(dir, ret, NULL);
        if (r != -ENOENT)
                return r < 0 ? mh_error_set(reterr, r, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory") : r;
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "compose_not_found",
                "no compose file in the current directory nor in %s, next to the drill (looked for "
                "compose.yaml, compose.yml, docker-compose.yml and docker-compose.yaml); name one with -c "
                "FILE",
                dir);
}

int cli_inputs_load(
        const char *spec_path, const char *compose_path, enum plan_host host, struct cli_inputs *in,
        struct mh_error *reterr) {
        _cleanup_free_ char *found = NULL;
        int r;

        *in = (struct cli_inputs){ 0 };
        if ((r = drill_load(spec_path, &in->spec, reterr)) < 0)
                return r;
        if (!compose_path) {
                r = find_compose(spec_path, &found, reterr);
                if (r < 0 && (r != -ENOENT || needs_compose(in->spec)))
                        return r;
                compose_path = found;
        }
        if (compose_path && (r = compose_load(compose_path, &in->topology, reterr)) < 0)
                return r;
        return plan_build_on(in->spec, in->topology, host, &in->plan, reterr);
}

void cli_inputs_done(struct cli_inputs *in) {
        in->plan = plan_free(in->plan);
        in->topology = topology_free(in->topology);
        in->spec = drill_spec_free(in->spec);
}

/* The plan id is not the id of a run: the same plan may run many times and
 * every run needs its own key in the evidence, so the line says both. */
void cli_inputs_print_validated(const struct cli_ctx *ctx, const struct cli_inputs *in) {
        const struct plan *pl = in->plan;
        const char *dash = strrchr(pl->run_id, '-');
        int prefix = dash ? (int)(dash - pl->run_id) : (int)strlen(pl->run_id);
        fprintf(ctx->out,
                "validated plan %s: %zu step(s), fingerprint %.12s; each run of it gets its own id, "
                "%.*s-<6 random hex digits>\n",
                pl->run_id, pl->n_steps, pl->fingerprint, prefix, pl->run_id);
}

void cli_inputs_warn(const struct cli_ctx *ctx, const struct cli_inputs *in) {
        for (size_t i = 0; in->topology && i < in->topology->n_warnings; i++)
                cli_print_warning(ctx, in->topology->warnings[i]);
        for (size_t i = 0; in->plan && i < in->plan->n_warnings; i++)
                cli_print_warning(ctx, in->plan->warnings[i]);
}
