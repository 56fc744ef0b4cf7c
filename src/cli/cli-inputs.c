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

int cli_inputs_load(
        const char *spec_path, const char *compose_path, enum plan_host host, struct cli_inputs *in,
        struct mh_error *reterr) {
        _cleanup_free_ char *found = NULL;
        int r;

        *in = (struct cli_inputs){ 0 };
        if ((r = drill_load(spec_path, &in->spec, reterr)) < 0)
                return r;
        if (!compose_path) {
                r = compose_find_default(".", &found, reterr);
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
        for (size_t i = 0; in->plan && i < in->plan->n_warnings; i++)
                cli_print_warning(ctx, in->plan->warnings[i]);
}
