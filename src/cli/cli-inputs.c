#include "cli-inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli-config.h"
#include "evidence/evidence.h"

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

/* The damage quota's history: what past runs' leases cost each target inside
 * the window. A database that does not exist yet has none, and is not
 * created here (a --dry-run leaves no file behind). */
struct damage_history {
        struct evidence_damage *rows;
        size_t n;
        struct plan_damage *damage;
};

static void damage_history_done(struct damage_history *h) {
        evidence_damage_free(h->rows, h->n);
        free(h->damage);
}

static int damage_history_read(
        const struct cli_ctx *ctx, const struct mayhem_config *cfg, struct damage_history *h,
        struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        struct timespec now;
        int r;

        if (!ctx->db_path || access(ctx->db_path, F_OK) < 0)
                return 0;
        clock_gettime(CLOCK_REALTIME, &now);
        int version = 0;
        if ((r = evidence_open_read(ctx->db_path, &ev, reterr)) < 0 ||
            (r = evidence_schema_version(ev, &version, reterr)) < 0)
                return r;
        if (version == 0) /* an empty file: no run was ever recorded in it */
                return 0;
        if ((r = evidence_damage(
                     ev, cfg->blast_radius.damage_quota.window_s,
                     (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000, &h->rows, &h->n, reterr)) < 0)
                return r;
        if (!(h->damage = calloc(h->n ? h->n : 1, sizeof(*h->damage))))
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        for (size_t i = 0; i < h->n; i++)
                h->damage[i] =
                        (struct plan_damage){ .target = h->rows[i].target, .fault_s = h->rows[i].fault_s };
        return 0;
}

int cli_build_plan(
        struct cli_ctx *ctx, enum plan_host host, const struct drill_spec *spec, const struct topology *topo,
        struct plan **ret, struct mh_error *reterr) {
        _cleanup_(damage_history_done) struct damage_history h = { 0 };
        int r = cli_config_prepare(ctx, reterr);
        if (r < 0 || (r = damage_history_read(ctx, ctx->config, &h, reterr)) < 0)
                return r;
        struct plan_options opt = { .host = host,
                                    .config = ctx->config,
                                    .policy_name = ctx->policy,
                                    .allow_critical = ctx->allow_critical,
                                    .skip_gate = ctx->skip_gate,
                                    .dry_run = ctx->dry_run,
                                    .damage = h.damage,
                                    .n_damage = h.n };
        return plan_build_with(spec, topo, &opt, ret, reterr);
}

void cli_print_decisions(const struct cli_ctx *ctx, const struct plan *pl) {
        for (size_t i = 0; i < pl->n_decisions; i++) {
                const struct plan_decision *d = &pl->decisions[i];
                fprintf(ctx->out, "dry-run %s: %s %s -> %s\n", d->rule, d->allow ? "allow" : "deny",
                        d->reason, d->remediation[0] ? d->remediation : "none");
        }
}

int cli_dry_run_verdict(const struct cli_ctx *ctx, const struct plan *pl, struct mh_error *reterr) {
        const struct plan_decision *first = NULL;
        for (size_t i = 0; i < pl->n_decisions && !first; i++)
                if (!pl->decisions[i].allow)
                        first = &pl->decisions[i];
        if (ctx->format != CLI_FORMAT_JSON) /* JSON's standard error holds only the error object */
                fprintf(ctx->err, "dry-run: %zu decision(s), %zu denied, policy %s; nothing was touched\n",
                        pl->n_decisions, pl->n_refused, pl->policy_name);
        if (!first)
                return CLI_INPUTS_DRY_RUN;
        int r = mh_error_set(
                reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "safety_refusal",
                "safety refused: %s [%s] (dry-run: %zu of %zu decisions denied)", first->reason, first->rule,
                pl->n_refused, pl->n_decisions);
        mh_error_remedy(reterr, "%s", first->remediation);
        return r;
}

int cli_inputs_load(
        struct cli_ctx *ctx, const char *spec_path, const char *compose_path, enum plan_host host,
        struct cli_inputs *in, struct mh_error *reterr) {
        _cleanup_free_ char *found = NULL;
        int r;

        *in = (struct cli_inputs){ 0 };
        if ((r = cli_config_prepare(ctx, reterr)) < 0 || (r = drill_load(spec_path, &in->spec, reterr)) < 0)
                return r;
        in->config = ctx->config;
        if (!compose_path) {
                r = find_compose(spec_path, &found, reterr);
                if (r < 0 && (r != -ENOENT || needs_compose(in->spec)))
                        return r;
                compose_path = found;
        }
        if ((compose_path && (r = compose_load(compose_path, &in->topology, reterr)) < 0) ||
            (r = cli_build_plan(ctx, host, in->spec, in->topology, &in->plan, reterr)) < 0)
                return r;
        if (ctx->dry_run) {
                cli_print_decisions(ctx, in->plan);
                return cli_dry_run_verdict(ctx, in->plan, reterr);
        }
        if (in->plan->n_refused) /* only a dry-run plan carries refusals; never hand one out */
                return mh_error_set(
                        reterr, -EPERM, MH_EXIT_SAFETY_REFUSAL, "safety_refusal",
                        "safety refused: the plan has "
                        "denied decisions");
        return 0;
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
