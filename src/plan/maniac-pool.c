/* What the maniac draws from: a drill's faults by container, or every
 * container x the runnable catalog. */

#include "maniac.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct maniac_pool *maniac_pool_free(struct maniac_pool *p) {
        if (p) {
                arena_free(&p->arena);
                free(p);
        }
        return NULL;
}

static int pool_new(size_t max_loci, struct maniac_pool **ret, struct mh_error *reterr) {
        struct maniac_pool *p = calloc(1, sizeof(*p));
        if (p) {
                arena_init(&p->arena, 0);
                p->loci = arena_alloc_array(&p->arena, max_loci ? max_loci : 1, sizeof(*p->loci));
        }
        if (!p || !p->loci) {
                maniac_pool_free(p);
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        }
        *ret = p;
        return 0;
}

static int oom(struct mh_error *reterr) {
        return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
}

/* A float in the fewest digits that read back as the same double. */
static void format_exact(char *buf, size_t size, double v, const char *suffix) {
        for (int prec = 15; prec <= 17; prec++) {
                snprintf(buf, size, "%.*g%s", prec, v, suffix);
                if (strtod(buf, NULL) == v)
                        return;
        }
}

static void param_text(const struct param_value *v, char *buf, size_t size) {
        if (v->type == PARAM_FLOAT || v->type == PARAM_PERCENT)
                format_exact(buf, size, v->f, v->type == PARAM_PERCENT ? "%" : "");
        else
                param_value_format(v, buf, size);
}

char *maniac_fault_params_json(const struct drill_fault *f) {
        _cleanup_(json_decrefp) json_t *o = json_object();
        char text[512];
        for (size_t i = 0; o && i < f->n_params; i++) {
                if (!f->params[i].given)
                        continue;
                param_text(&f->params[i].value, text, sizeof(text));
                json_object_set_new(o, f->params[i].spec->name, json_string(text));
        }
        if (o && f->peers.n) {
                json_t *a = json_array();
                for (size_t i = 0; a && i < f->peers.n; i++)
                        json_array_append_new(a, json_string(f->peers.v[i]));
                json_object_set_new(o, "targets", a);
        }
        if (o && f->network_path)
                json_object_set_new(o, "network_path", json_string(f->network_path));
        return o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

static struct maniac_locus *locus_for(struct maniac_pool *p, const char *container, unsigned node_kinds) {
        for (size_t i = 0; i < p->n_loci; i++)
                if (streq(p->loci[i].container, container))
                        return &p->loci[i];
        struct maniac_locus *l = &p->loci[p->n_loci++];
        *l = (struct maniac_locus){ .container = container, .node_kinds = node_kinds };
        return l;
}

/* Appends t's faults to its locus (the array grows by a fresh copy: pools are small). */
static int add_target_faults(struct maniac_pool *p, struct maniac_locus *l, const struct drill_target *t) {
        struct maniac_fault *v = arena_alloc_array(&p->arena, l->n_faults + t->n_faults, sizeof(*v));
        if (!v)
                return -ENOMEM;
        if (l->n_faults)
                memcpy(v, l->faults, l->n_faults * sizeof(*v));
        for (size_t i = 0; i < t->n_faults; i++) {
                _cleanup_free_ char *params = maniac_fault_params_json(&t->faults[i]);
                struct maniac_fault *f = &v[l->n_faults + i];
                if (!params || !(f->params_json = arena_strdup(&p->arena, params)))
                        return -ENOMEM;
                f->def = t->faults[i].def;
                f->duration_ms = t->faults[i].duration_ms;
        }
        l->faults = v;
        l->n_faults += t->n_faults;
        return 0;
}

static int none_left(const char *only, struct mh_error *reterr) {
        if (only)
                return mh_error_set(
                        reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_empty_pool",
                        "--ctr %s: no fault to draw for that container", only);
        return mh_error_set(
                reterr, -ENOENT, MH_EXIT_VALIDATION_ERROR, "maniac_empty_pool",
                "nothing to draw from: no container target with a fault");
}

int maniac_pool_from_spec(
        const struct drill_spec *spec, const struct topology *topo, const char *only,
        struct maniac_pool **ret, struct mh_error *reterr) {
        _cleanup_(maniac_pool_freep) struct maniac_pool *p = NULL;
        int r = pool_new(spec->n_targets, &p, reterr);
        if (r < 0)
                return r;
        for (size_t i = 0; i < spec->n_targets; i++) {
                const struct drill_target *t = &spec->targets[i];
                const struct topo_container *c = NULL;
                struct mh_error why = { 0 };
                if (t->runtime != TARGET_RUNTIME_DOCKER || t->n_faults == 0)
                        continue; /* the maniac draws containers; other targets stay out of the pool */
                if (!topo)
                        return mh_error_at(
                                reterr, spec->path, t->pos.line, t->pos.col,
                                "target '%s' can only be resolved in a compose file (-c FILE)", t->name);
                if (topology_resolve(topo, t->container_name, &c, &why) < 0)
                        return mh_error_at(
                                reterr, spec->path, t->pos.line, t->pos.col, "target '%s': %s", t->name,
                                why.msg);
                if (only && !streq(c->name, only))
                        continue;
                if (add_target_faults(p, locus_for(p, c->name, NK_SVC | NK_CTR), t) < 0)
                        return oom(reterr);
        }
        if (p->n_loci == 0)
                return none_left(only, reterr);
        *ret = TAKE_PTR(p);
        return 0;
}

/* Runnable here, applies to a container, and every required parameter has a default. */
static bool synthesizable(const struct fault_def *f) {
        if (fault_status_of(f) != FAULT_STATUS_RUNNABLE || !(f->node_kinds & NK_CTR))
                return false;
        for (size_t i = 0; i < f->n_params; i++)
                if (f->params[i].required && !f->params[i].has_default)
                        return false;
        return true;
}

int maniac_pool_from_catalog(
        const struct topology *topo, const char *only, struct maniac_pool **ret, struct mh_error *reterr) {
        _cleanup_(maniac_pool_freep) struct maniac_pool *p = NULL;
        size_t n = 0, n_cat = catalog_size();
        int r = pool_new(topo->n_containers, &p, reterr);
        if (r < 0)
                return r;
        struct maniac_fault *faults = arena_alloc_array(&p->arena, n_cat ? n_cat : 1, sizeof(*faults));
        if (!faults)
                return oom(reterr);
        for (size_t i = 0; i < n_cat; i++) {
                const struct fault_def *f = catalog_at(i);
                int64_t max = (int64_t)f->max_duration_s * 1000;
                if (!synthesizable(f))
                        continue;
                faults[n++] = (struct maniac_fault){ .def = f,
                                                     .params_json = "{}",
                                                     .duration_ms = max > 0 && max < MANIAC_DURATION_DEFAULT
                                                                            ? max
                                                                            : MANIAC_DURATION_DEFAULT };
        }
        for (size_t i = 0; n && i < topo->n_containers; i++) {
                const char *name = topo->containers[i].name;
                if (only && !streq(name, only))
                        continue;
                struct maniac_locus *l = locus_for(p, name, NK_SVC | NK_CTR);
                l->faults = faults;
                l->n_faults = n;
        }
        if (p->n_loci == 0)
                return none_left(only, reterr);
        *ret = TAKE_PTR(p);
        return 0;
}
