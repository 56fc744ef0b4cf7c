#include "run-setup.h"

#include <stdlib.h>
#include <string.h>

#include "cli-config.h"
#include "cli-internal.h"
#include "env-fingerprint.h"
#include "json-diff.h"

/* --from-plan and --plan-id each name the drill: neither goes with SPEC or the other. */
static int check_sources(struct cli_ctx *ctx, const struct cli_args *args, struct mh_error *reterr) {
        bool from = cli_arg(ctx, args, "from-plan"), id = cli_arg(ctx, args, "plan-id");
        if (from && id)
                return cli_usage_error(
                        reterr, ctx,
                        "--from-plan and --plan-id are mutually exclusive: give one plan to run");
        if ((from || id) && args->n_positional)
                return cli_usage_error(
                        reterr, ctx, "%s names the drill already: give it or SPEC, not both",
                        from ? "--from-plan" : "--plan-id");
        return 0;
}

static int load_saved(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr) {
        const char *file = cli_arg(ctx, args, "from-plan"), *id = cli_arg(ctx, args, "plan-id");
        if (file)
                return saved_plan_from_file(file, &s->saved, reterr);
        if (id)
                return saved_plan_from_run(ctx->db_path, id, &s->saved, reterr);
        return 0;
}

static const char *spec_path(const struct cli_args *args, const struct run_setup *s) {
        if (args->n_positional)
                return args->positional[0];
        return s->saved.root ? s->saved.drill : s->config->drill_path;
}

/* --engine beats -p, which beats the target profile's engine, then the configuration's runtime. */
static int pick_engine(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr) {
        const struct config_target *t = s->config->target;
        const char *e = cli_arg(ctx, args, "engine");
        if (!e && ctx->podman)
                e = "podman";
        if (!e)
                e = t && t->engine ? t->engine : s->config->runtime ? s->config->runtime : "docker";
        if (strcmp(e, "docker") == 0)
                s->engine = ENGINE_DOCKER;
        else if (strcmp(e, "podman") == 0)
                s->engine = ENGINE_PODMAN;
        else
                return cli_usage_error(reterr, ctx, "--engine takes docker or podman, not '%s'", e);
        return 0;
}

/* --ctr names a container one of the plan's faults is on (exit 4 listing
 * them); without it, the target profile's containers (if it names any)
 * scope the run. */
static int scope(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr) {
        const struct plan *pl = s->in.plan;
        const char *ctr = cli_arg(ctx, args, "ctr");
        char known[512] = "";
        size_t used = 0;
        if (!ctr && s->config->target && s->config->target->containers) {
                s->scope = s->config->target->containers; /* the profile's scope */
                s->n_scope = s->config->target->n_containers;
                return 0;
        }
        if (!ctr)
                return 0;
        for (size_t i = 0; i < pl->n_targets; i++) {
                const char *name = pl->targets[i].container ? pl->targets[i].container->name : NULL;
                if (name && strcmp(name, ctr) == 0) {
                        s->only[0] = ctr;
                        s->scope = s->only;
                        s->n_scope = 1;
                        return 0;
                }
                if (name && used < sizeof(known))
                        used += (size_t)snprintf(
                                known + used, sizeof(known) - used, "%s%s", used ? ", " : "", name);
        }
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "validation",
                "--ctr %s: no fault of the drill is on that container (its containers: %s)", ctr,
                known[0] ? known : "none");
}

static json_t *abs_path_json(const char *path) {
        _cleanup_free_ char *abs = path ? realpath(path, NULL) : NULL;
        return abs ? json_string(abs) : path ? json_string(path) : json_null();
}

/* The facts the environment fingerprint covers, and what the run row keeps
 * to run the plan again (--plan-id). */
static int environment(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr) {
        struct env_facts f;
        const char *compose = s->in.topology ? s->in.topology->source_path : NULL;
        int r = env_facts_collect(
                cli_arg(ctx, args, "agent"), compose, ctx->profile, ctx->policy, ctx->target, s->host,
                sizeof(s->host), &f, reterr);
        if (r < 0)
                return r;
        s->environment = env_facts_json(&f);
        s->spec = json_pack(
                "{s:o, s:o, s:O}", "drill", abs_path_json(s->in.spec->path), "compose",
                abs_path_json(compose), "environment", s->environment);
        if (!s->environment || !s->spec)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        s->env_fingerprint = json_string_value(json_object_get(s->environment, "fingerprint"));
        return 0;
}

int run_setup_load(
        struct cli_ctx *ctx, const struct cli_args *args, struct run_setup *s, struct mh_error *reterr) {
        const char *compose = cli_arg(ctx, args, "compose");
        int r;
        *s = (struct run_setup){ 0 };
        if ((r = check_sources(ctx, args, reterr)) < 0 || (r = cli_config_prepare(ctx, reterr)) < 0)
                return r;
        s->config = ctx->config;
        if ((r = pick_engine(ctx, args, s, reterr)) < 0 || (r = load_saved(ctx, args, s, reterr)) < 0)
                return r;
        const char *spec = spec_path(args, s);
        if (!spec)
                return cli_usage_error(reterr, ctx, "run needs SPEC, --from-plan FILE or --plan-id RUN_ID");
        if (!compose && s->saved.root)
                compose = s->saved.compose;
        enum plan_host host = cli_arg(ctx, args, "agent") ? PLAN_HOST_REMOTE : PLAN_HOST_LOCAL;
        if ((r = cli_inputs_load(ctx, spec, compose, host, &s->in, reterr)) != 0) /* or --dry-run done */
                return r;
        if ((r = environment(ctx, args, s, reterr)) < 0)
                return r;
        if (s->saved.root && (r = saved_plan_check(&s->saved, s->in.plan, s->environment, reterr)) < 0)
                return r;
        return scope(ctx, args, s, reterr);
}

void run_setup_done(struct run_setup *s) {
        json_decref(s->spec);
        json_decref(s->environment);
        cli_inputs_done(&s->in);
        saved_plan_done(&s->saved);
}

int run_setup_diff(
        struct cli_ctx *ctx, const struct run_setup *s, const char *file, bool json,
        struct mh_error *reterr) {
        json_t *doc = NULL, *old = NULL, *body = NULL, *diff = NULL;
        int r = saved_plan_read_json(file, &doc, reterr);
        if (r < 0)
                return r;
        const char *old_fp = json_string_value(json_object_get(doc, "fingerprint"));
        if (!(old = saved_plan_body_of(doc)) || plan_body_json(s->in.plan, &body) < 0 ||
            !(diff = json_diff(old, body)))
                r = mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        else if (json) {
                json_object_set_new(diff, "old_fingerprint", old_fp ? json_string(old_fp) : json_null());
                json_object_set_new(diff, "new_fingerprint", json_string(s->in.plan->fingerprint));
                r = cli_print_json(ctx, json_incref(diff), reterr);
        } else {
                json_diff_print(ctx->out, diff, old, body);
                fprintf(ctx->out, "%zu difference(s) between the plan in %s (%.12s) and this one (%.12s)\n",
                        json_diff_count(diff), file, old_fp ? old_fp : "no fingerprint",
                        s->in.plan->fingerprint);
        }
        json_decref(diff);
        json_decref(body);
        json_decref(old);
        json_decref(doc);
        return r;
}
