#include "plan-internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pb_oom(struct plan_builder *b) {
        return mh_error_set(
                b->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory while planning");
}

static int grow(struct plan_builder *b, void **arr, size_t n, size_t *cap, size_t elem) {
        if (n < *cap)
                return 0;
        size_t new_cap = *cap ? *cap * 2 : 16;
        void *p = arena_alloc_array(&b->plan->arena, new_cap, elem);
        if (!p)
                return pb_oom(b);
        if (n)
                memcpy(p, *arr, n * elem);
        *arr = p;
        *cap = new_cap;
        return 0;
}

int pb_warn(struct plan_builder *b, const char *fmt, ...) {
        struct plan *pl = b->plan;
        char line[MH_ERROR_MSG_MAX];
        va_list ap;
        int r = grow(b, (void **)&pl->warnings, pl->n_warnings, &b->warnings_cap, sizeof(*pl->warnings));
        if (r < 0)
                return r;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (!(pl->warnings[pl->n_warnings] = arena_strdup(&pl->arena, line)))
                return pb_oom(b);
        pl->n_warnings++;
        return 0;
}

int pb_decide(
        struct plan_builder *b, const char *rule, const struct plan_fault *f, bool allow, const char *remedy,
        const char *fmt, ...) {
        struct plan *pl = b->plan;
        char reason[MH_ERROR_MSG_MAX];
        va_list ap;
        int r = grow(b, (void **)&pl->decisions, pl->n_decisions, &b->decisions_cap, sizeof(*pl->decisions));
        if (r < 0)
                return r;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof(reason), fmt, ap);
        va_end(ap);
        struct plan_decision *d = &pl->decisions[pl->n_decisions];
        *d = (struct plan_decision){
                .rule = rule,
                .fault_id = f->id,
                .allow = allow,
                .reason = arena_strdup(&pl->arena, reason),
                .remediation = arena_strdup(&pl->arena, remedy ? remedy : ""),
        };
        if (!d->reason || !d->remediation)
                return pb_oom(b);
        pl->n_decisions++;
        return 0;
}

/* Resolves a name in the compose topology, pointing the error at pos. */
static int resolve(
        struct plan_builder *b, const char *name, struct srcpos pos, const char *what,
        const struct topo_container **ret) {
        struct mh_error why = { 0 };
        if (!b->topo)
                return pb_fail(
                        b, pos, "%s: '%s' can only be resolved in a compose file (-c FILE)", what, name);
        if (topology_resolve(b->topo, name, ret, &why) >= 0)
                return 0;
        return pb_fail(b, pos, "%s: %s", what, why.msg);
}

/* A plain host process: resolved live at run time, by pid or by name. */
static int process_target(struct plan_builder *b, const struct drill_target *t, struct plan_target *pt) {
        char label[64];
        if (t->process_name)
                snprintf(label, sizeof(label), "%s", t->process_name);
        else
                snprintf(label, sizeof(label), "pid %" PRId64, t->process_pid);
        if (!(pt->label = arena_strdup(&b->plan->arena, label)))
                return pb_oom(b);
        pt->node_kinds = NK_PROC;
        return 0;
}

static int resolve_targets(struct plan_builder *b) {
        const struct drill_spec *s = b->spec;
        struct plan *pl = b->plan;
        char what[DRILL_NAME_MAX + 32];
        int r;

        pl->n_targets = s->n_targets;
        if (!(pl->targets = arena_alloc_array(&pl->arena, s->n_targets, sizeof(*pl->targets))))
                return pb_oom(b);
        for (size_t i = 0; i < s->n_targets; i++) {
                const struct drill_target *t = &s->targets[i];
                struct plan_target *pt = &pl->targets[i];
                if (t->runtime == TARGET_RUNTIME_KUBERNETES)
                        return pb_fail(
                                b, t->pos,
                                "target '%s': kubernetes targets are not supported yet; "
                                "use a docker target",
                                t->name);
                pt->src = t;
                if (t->runtime == TARGET_RUNTIME_PROCESS) {
                        if ((r = process_target(b, t, pt)) < 0)
                                return r;
                        continue;
                }
                if (!b->topo)
                        return pb_fail(
                                b, t->pos,
                                "target '%s' is a container, so a compose file is needed (-c FILE)",
                                t->name);
                snprintf(what, sizeof(what), "target '%s'", t->name);
                if ((r = resolve(b, t->container_name, t->pos, what, &pt->container)) < 0)
                        return r;
                pt->service = &b->topo->services[pt->container->service];
                pt->label = pt->container->name;
                pt->node_kinds = NK_SVC | NK_CTR;
        }
        return 0;
}

static int resolve_peers(struct plan_builder *b, struct plan_fault *f) {
        const struct drill_names *peers = &f->src->peers;
        char what[64];
        int r;
        f->n_peers = peers->n;
        if (!(f->peers = arena_alloc_array(&b->plan->arena, peers->n ? peers->n : 1, sizeof(*f->peers))))
                return pb_oom(b);
        for (size_t i = 0; i < peers->n; i++) {
                const struct topo_container *c = NULL;
                snprintf(what, sizeof(what), "%s peer", f->src->def->id);
                if ((r = resolve(b, peers->v[i], peers->pos[i], what, &c)) < 0)
                        return r;
                f->peers[i] = c->name;
        }
        return 0;
}

static unsigned lease_ttl_s(const struct drill_fault *f) {
        unsigned hold = (unsigned)((f->duration_ms + 999) / 1000);
        return MAX(PLAN_LEASE_TTL_MIN_S, hold + PLAN_LEASE_TTL_MARGIN_S);
}

static int plan_faults(struct plan_builder *b) {
        const struct drill_spec *s = b->spec;
        struct plan *pl = b->plan;
        size_t n = 0;
        int r;

        for (size_t i = 0; i < s->n_targets; i++)
                n += s->targets[i].n_faults;
        pl->n_faults = n;
        if (!(pl->faults = arena_alloc_array(&pl->arena, n, sizeof(*pl->faults))))
                return pb_oom(b);
        for (size_t i = 0, k = 0; i < s->n_targets; i++)
                for (size_t j = 0; j < s->targets[i].n_faults; j++, k++) {
                        struct plan_fault *f = &pl->faults[k];
                        snprintf(f->id, sizeof(f->id), "f-%04zu", k + 1);
                        f->src = &s->targets[i].faults[j];
                        f->target = &pl->targets[i];
                        f->lease_ttl_s = lease_ttl_s(f->src);
                        if ((r = plan_gate_fault(b, f)) < 0 || (r = resolve_peers(b, f)) < 0)
                                return r;
                }
        return 0;
}

static size_t first_fault_of(const struct plan *pl, const struct plan_target *t) {
        for (size_t i = 0; i < pl->n_faults; i++)
                if (pl->faults[i].target == t)
                        return i;
        return pl->n_faults;
}

static int plan_lanes(struct plan_builder *b, struct plan_step *ps) {
        const struct drill_names *names = &ps->src->names;
        struct plan *pl = b->plan;
        ps->n_lanes = names->n;
        if (!(ps->lanes = arena_alloc_array(&pl->arena, names->n, sizeof(*ps->lanes))))
                return pb_oom(b);
        for (size_t i = 0; i < names->n; i++) {
                const struct drill_target *t = drill_spec_find_target(b->spec, names->v[i]);
                struct plan_lane *lane = &ps->lanes[i];
                lane->target = &pl->targets[t - b->spec->targets];
                lane->first_fault = first_fault_of(pl, lane->target);
                lane->n_faults = t->n_faults;
        }
        return 0;
}

/* execution: service: every container of the service the target names (a
 * service, or one container of it). */
static int service_locus(
        struct plan_builder *b, const struct drill_check *ck, const char *what, struct plan_check_locus *l) {
        const struct topology *t = b->topo;
        const struct topo_container *c = t ? topology_find_container(t, ck->target) : NULL;
        size_t s;
        if (c)
                s = c->service;
        else if (!t || topology_find_service(t, ck->target, &s) < 0) {
                int r = resolve(b, ck->target, ck->target_pos, what, &c);
                return r < 0 ? r : pb_fail(b, ck->target_pos, "%s: '%s' is not a service", what, ck->target);
        }
        const struct topo_service *svc = &t->services[s];
        if (svc->replicas == 0)
                return pb_fail(
                        b, ck->target_pos, "%s: service '%s' has no containers (it is scaled to 0)", what,
                        svc->name);
        const char **names = arena_alloc_array(&b->plan->arena, svc->replicas, sizeof(char *));
        if (!names)
                return pb_oom(b);
        for (size_t i = 0; i < svc->replicas; i++)
                names[i] = t->containers[svc->first_container + i].name;
        l->containers = names;
        l->n_containers = svc->replicas;
        return 0;
}

/* execution: process: a process target of the drill, by its name. */
static int process_locus(
        struct plan_builder *b, const struct drill_check *ck, const char *what, struct plan_check_locus *l) {
        const struct drill_target *t = drill_spec_find_target(b->spec, ck->target);
        if (!t || t->runtime != TARGET_RUNTIME_PROCESS)
                return pb_fail(
                        b, ck->target_pos,
                        "%s: '%s' is not a process target of the drill (targets: with runtime: process)",
                        what, ck->target);
        l->process = &b->plan->targets[t - b->spec->targets];
        return 0;
}

static int check_locus(struct plan_builder *b, const struct drill_check *ck, struct plan_check_locus *l) {
        const struct topo_container *c = NULL;
        char what[128];
        int r;
        *l = (struct plan_check_locus){ 0 };
        snprintf(what, sizeof(what), "check '%s' target", ck->id);
        if (ck->execution == CHECK_LOCUS_SERVICE)
                return service_locus(b, ck, what, l);
        if (ck->execution == CHECK_LOCUS_PROCESS)
                return process_locus(b, ck, what, l);
        if (ck->execution != CHECK_LOCUS_CONTAINER)
                return 0;
        if ((r = resolve(b, ck->target, ck->target_pos, what, &c)) < 0)
                return r;
        const char **names = arena_alloc_array(&b->plan->arena, 1, sizeof(char *));
        if (!names)
                return pb_oom(b);
        names[0] = c->name;
        l->containers = names;
        l->n_containers = 1;
        return 0;
}

static int check_check_targets(struct plan_builder *b, struct plan_step *ps) {
        const struct drill_step *st = ps->src;
        int r;
        if (st->n_checks &&
            !(ps->check_loci = arena_alloc_array(&b->plan->arena, st->n_checks, sizeof(*ps->check_loci))))
                return pb_oom(b);
        for (size_t i = 0; i < st->n_checks; i++)
                if ((r = check_locus(b, &st->checks[i], &ps->check_loci[i])) < 0)
                        return r;
        return 0;
}

static int plan_steps(struct plan_builder *b) {
        const struct drill_spec *s = b->spec;
        struct plan *pl = b->plan;
        int r;

        pl->n_steps = s->n_steps;
        if (!(pl->steps = arena_alloc_array(&pl->arena, s->n_steps, sizeof(*pl->steps))))
                return pb_oom(b);
        for (size_t i = 0; i < s->n_steps; i++) {
                struct plan_step *ps = &pl->steps[i];
                ps->src = &s->steps[i];
                if (ps->src->kind == STEP_PARALLEL || ps->src->kind == STEP_SEQUENTIAL) {
                        if ((r = plan_lanes(b, ps)) >= 0 && (r = plan_gate_lanes(b, ps)) >= 0)
                                r = plan_blast_step(b, ps);
                } else
                        r = check_check_targets(b, ps);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void make_run_id(struct plan *pl) {
        char slug[DRILL_NAME_MAX + 1];
        size_t n = 0;
        for (const char *c = pl->spec->name; *c && n < DRILL_NAME_MAX; c++) {
                unsigned char ch = (unsigned char)*c;
                bool keep = isalnum(ch) || ch == '-' || ch == '_' || ch == '.';
                slug[n++] = keep ? (char)tolower(ch) : '-';
        }
        slug[n] = '\0';
        snprintf(pl->run_id, sizeof(pl->run_id), "r-%s-%.6s", slug, pl->fingerprint);
}

static int fingerprint(struct plan_builder *b) {
        struct plan *pl = b->plan;
        json_t *body = NULL;
        int r = plan_body_json(pl, &body);
        if (r < 0)
                return pb_oom(b);
        char *text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(body);
        if (!text)
                return pb_oom(b);
        pl->canonical_json = arena_strdup(&pl->arena, text);
        sha256_hex(text, strlen(text), pl->fingerprint);
        free(text);
        if (!pl->canonical_json)
                return pb_oom(b);
        make_run_id(pl);
        return 0;
}

int plan_build(
        const struct drill_spec *spec, const struct topology *topo, struct plan **ret,
        struct mh_error *reterr) {
        return plan_build_on(spec, topo, PLAN_HOST_LOCAL, ret, reterr);
}

int plan_build_on(
        const struct drill_spec *spec, const struct topology *topo, enum plan_host host, struct plan **ret,
        struct mh_error *reterr) {
        struct plan_options opt = { .host = host };
        return plan_build_with(spec, topo, &opt, ret, reterr);
}

/* The configuration the gates read (the built-in defaults without one), the
 * --policy profile over its policy, and a damage account per target. */
static int setup_safety(struct plan_builder *b, struct mayhem_config **own) {
        int r;
        if (!(b->config = b->opt->config)) {
                if ((r = config_defaults(own, b->reterr)) < 0)
                        return r;
                b->config = *own;
        }
        if ((r = plan_policy_setup(b)) < 0)
                return r;
        size_t n = b->spec->n_targets;
        if (!(b->charged = arena_alloc_array(&b->plan->arena, n ? n : 1, sizeof(*b->charged))))
                return pb_oom(b);
        memset(b->charged, 0, (n ? n : 1) * sizeof(*b->charged));
        return 0;
}

int plan_build_with(
        const struct drill_spec *spec, const struct topology *topo, const struct plan_options *opt,
        struct plan **ret, struct mh_error *reterr) {
        _cleanup_(plan_freep) struct plan *pl = calloc(1, sizeof(*pl));
        _cleanup_(config_freep) struct mayhem_config *own = NULL;
        int r;

        if (!pl)
                return mh_error_set(
                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory while planning");
        arena_init(&pl->arena, 0);
        pl->spec = spec;
        pl->topology = topo;
        struct plan_builder b = {
                .plan = pl, .spec = spec, .topo = topo, .reterr = reterr, .host = opt->host, .opt = opt
        };
        if ((r = drill_spec_check(spec, reterr)) < 0 || (r = setup_safety(&b, &own)) < 0 ||
            (r = resolve_targets(&b)) < 0 || (r = plan_faults(&b)) < 0 || (r = plan_steps(&b)) < 0 ||
            (r = plan_support_steps(&b)) < 0 || (r = plan_collect_warnings(&b)) < 0 ||
            (r = fingerprint(&b)) < 0)
                return r;
        *ret = TAKE_PTR(pl);
        return 0;
}

struct plan *plan_free(struct plan *plan) {
        if (!plan)
                return NULL;
        arena_free(&plan->arena);
        free(plan);
        return NULL;
}
