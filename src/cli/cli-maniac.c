#include "cli-maniac.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "basic/parse-number.h"
#include "cli-config.h"
#include "cli-inputs.h"
#include "evidence/evidence.h"

void maniac_job_done(struct maniac_job *j) {
        j->plan = plan_free(j->plan);
        j->drill = drill_spec_free(j->drill);
        free(j->drill_text);
        free(j->name);
        for (size_t i = 0; j->params && i < j->n_draws; i++)
                free(j->params[i]);
        free(j->params);
        json_decref(j->replayed);
        free(j->draws);
        j->pool = maniac_pool_free(j->pool);
        j->topo = topology_free(j->topo);
        j->spec = drill_spec_free(j->spec);
        *j = (struct maniac_job){ 0 };
}

static int oom(struct mh_error *reterr) {
        return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
}

/* -c, else compose.yaml & co. in the working directory, else beside the drill. */
static int load_compose(
        const char *spec_path, const char *compose_path, struct topology **ret, struct mh_error *reterr) {
        _cleanup_free_ char *found = NULL, *dir = NULL;
        if (compose_path)
                return compose_load(compose_path, ret, reterr);
        int r = compose_find_default(".", &found, reterr);
        if (r == -ENOENT && spec_path && (dir = strdup(spec_path)) && strrchr(dir, '/')) {
                char *slash = strrchr(dir, '/');
                slash[slash == dir] = '\0';
                r = compose_find_default(dir, &found, reterr);
        }
        if (r == -ENOENT)
                return mh_error_set(
                        reterr, r, MH_EXIT_VALIDATION_ERROR, "compose_not_found",
                        "no compose file in the current directory%s (looked for compose.yaml, compose.yml, "
                        "docker-compose.yml and docker-compose.yaml); name one with -c FILE",
                        spec_path ? " nor next to the drill" : "");
        return r < 0 ? r : compose_load(found, ret, reterr);
}

static int parse_bounded(
        struct cli_ctx *ctx, const char *opt, const char *s, int64_t min, int64_t max, int64_t *ret,
        struct mh_error *reterr) {
        int64_t v;
        if (parse_int64(s, &v) < 0 || v < min || v > max)
                return cli_usage_error(
                        reterr, ctx, "--%s %s: expected an integer %lld..%lld", opt, s, (long long)min,
                        (long long)max);
        *ret = v;
        return 0;
}

/* The drill's config.maniac block beats the configuration's maniac:, whole. */
static void settings(
        const struct maniac_job *j, int64_t *ret_level, int64_t *ret_steps, bool *ret_has_seed,
        int64_t *ret_seed) {
        const struct drill_config *d = j->spec ? &j->spec->config : NULL;
        if (d && d->has_maniac) {
                *ret_level = d->maniac_level;
                *ret_steps = d->maniac_run_level;
                *ret_has_seed = d->has_maniac_seed;
                *ret_seed = d->maniac_seed;
                return;
        }
        *ret_level = j->cfg->maniac.level;
        *ret_steps = j->cfg->maniac.run_level;
        *ret_has_seed = j->cfg->maniac.has_seed;
        *ret_seed = j->cfg->maniac.seed;
}

static int random_seed(int64_t *ret, struct mh_error *reterr) {
        uint64_t v;
        if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
                return mh_error_set(
                        reterr, -errno, MH_EXIT_GENERAL_FAILURE, "getrandom", "drawing a seed: %s",
                        strerror(errno));
        *ret = (int64_t)(v & (uint64_t)INT64_MAX); /* non-negative: easier to read and to type */
        return 0;
}

int maniac_job_draw(
        struct cli_ctx *ctx, const char *spec_path, const char *compose_path, const char *steps,
        const char *seed, const char *only, struct maniac_job *j, struct mh_error *reterr) {
        int64_t level, n, s;
        bool has_seed;
        int r;

        if ((r = cli_config_prepare(ctx, reterr)) < 0)
                return r;
        j->cfg = ctx->config;
        if (!spec_path)
                spec_path = j->cfg->drill_path;
        if ((spec_path && (r = drill_load(spec_path, &j->spec, reterr)) < 0) ||
            (r = load_compose(spec_path, compose_path, &j->topo, reterr)) < 0)
                return r;
        r = j->spec ? maniac_pool_from_spec(j->spec, j->topo, only, &j->pool, reterr)
                    : maniac_pool_from_catalog(j->topo, only, &j->pool, reterr);
        if (r < 0)
                return r;
        settings(j, &level, &n, &has_seed, &s);
        if ((steps && (r = parse_bounded(ctx, "steps", steps, 1, MANIAC_STEPS_MAX, &n, reterr)) < 0) ||
            (seed && (r = parse_bounded(ctx, "seed", seed, INT64_MIN, INT64_MAX, &s, reterr)) < 0))
                return r;
        j->seed_drawn = !seed && !has_seed;
        if (j->seed_drawn && (r = random_seed(&s, reterr)) < 0)
                return r;
        if (!(j->draws = calloc((size_t)n, sizeof(*j->draws))))
                return oom(reterr);
        j->n_draws = (size_t)n;
        return maniac_draw(j->pool, s, (unsigned)level, (unsigned)n, j->draws, reterr);
}

/* One recorded draw back as a maniac_draw pointing into j->replayed. */
static int replayed_draw(
        const char *run_id, const json_t *o, struct maniac_draw *d, char **ret_params,
        struct mh_error *reterr) {
        const char *id = json_string_value(json_object_get(o, "fault_id"));
        *d = (struct maniac_draw){ .seq = (unsigned)json_integer_value(json_object_get(o, "seq")),
                                   .level = (unsigned)json_integer_value(json_object_get(o, "level")),
                                   .seed = json_integer_value(json_object_get(o, "seed")),
                                   .container = json_string_value(json_object_get(o, "container")),
                                   .def = id ? catalog_find(id) : NULL,
                                   .duration_ms = json_integer_value(json_object_get(o, "duration_ms")),
                                   .at_ms = json_integer_value(json_object_get(o, "at_ms")) };
        if (!d->def || !d->container)
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_VALIDATION_ERROR, "maniac_replay",
                        "run '%s' draw %u: fault '%s' is not in this build's catalog; nothing to replay",
                        run_id, d->seq, id ? id : "(none)");
        if (!(*ret_params = json_dumps(json_object_get(o, "params"), JSON_COMPACT | JSON_SORT_KEYS)))
                return oom(reterr);
        d->params_json = *ret_params;
        return 0;
}

static int read_draws(
        struct cli_ctx *ctx, const char *run_id, struct maniac_job *j, struct mh_error *reterr) {
        _cleanup_(evidence_closep) struct evidence *ev = NULL;
        int r;
        if ((r = evidence_open(ctx->db_path, &ev, reterr)) < 0 ||
            (r = evidence_maniac_draws_json(ev, run_id, &j->replayed, reterr)) < 0)
                return r;
        _cleanup_(json_decrefp) json_t *runs = NULL;
        if ((r = evidence_runs_json(ev, run_id, 1, &runs, reterr)) < 0)
                return r;
        const char *name = json_string_value(json_object_get(json_array_get(runs, 0), "experiment_name"));
        if (name && !(j->name = strdup(name)))
                return oom(reterr);
        size_t n = json_array_size(j->replayed);
        if (n == 0)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_replay",
                        "run '%s' has no maniac draws in %s (it was not a `mayhem maniac` run); nothing to "
                        "replay",
                        run_id, ctx->db_path);
        if (!(j->draws = calloc(n, sizeof(*j->draws))) || !(j->params = calloc(n, sizeof(*j->params))))
                return oom(reterr);
        j->n_draws = n;
        for (size_t i = 0; i < n; i++)
                if ((r = replayed_draw(
                             run_id, json_array_get(j->replayed, i), &j->draws[i], &j->params[i], reterr)) <
                    0)
                        return r;
        return 0;
}

int maniac_job_replay(
        struct cli_ctx *ctx, const char *run_id, const char *compose_path, struct maniac_job *j,
        struct mh_error *reterr) {
        int r;
        j->replay_of = run_id;
        if ((r = cli_config_prepare(ctx, reterr)) < 0)
                return r;
        j->cfg = ctx->config;
        if ((r = read_draws(ctx, run_id, j, reterr)) < 0 ||
            (r = load_compose(NULL, compose_path, &j->topo, reterr)) < 0)
                return r;
        for (size_t i = 0; i < j->n_draws; i++)
                if (!topology_find_container(j->topo, j->draws[i].container))
                        return mh_error_set(
                                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_replay",
                                "run '%s' draw %u: container '%s' is gone (not in %s); nothing was touched",
                                run_id, j->draws[i].seq, j->draws[i].container, j->topo->source_path);
        return 0;
}

int maniac_job_plan(struct cli_ctx *ctx, struct maniac_job *j, struct mh_error *reterr) {
        const char *name = j->spec ? j->spec->name : j->name ? j->name : "maniac";
        int r;
        if ((r = maniac_drill_text(
                     name, j->spec ? &j->spec->config : NULL, j->draws, j->n_draws, &j->drill_text,
                     reterr)) < 0 ||
            (r = drill_parse("maniac draws", j->drill_text, strlen(j->drill_text), &j->drill, reterr)) < 0)
                return r;
        return cli_build_plan(ctx, PLAN_HOST_LOCAL, j->drill, j->topo, &j->plan, reterr);
}
