#include "config-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/suggest.h"

/* After every layer: extends (one level), then --target or the only
 * profile, then the selected profile's engine as the runtime unless -p. */

static struct config_stage_target *find(struct config_loader *L, const char *name) {
        for (size_t i = 0; i < L->n_targets; i++)
                if (strcmp(L->targets[i].t.name, name) == 0)
                        return &L->targets[i];
        return NULL;
}

static int copy_origin(struct config_loader *L, const char *to, const char *from, const char *field) {
        char kt[128], kf[128];
        snprintf(kt, sizeof(kt), "targets.%s.%s", to, field);
        snprintf(kf, sizeof(kf), "targets.%s.%s", from, field);
        const struct config_origin *o = cl_origin_get(L, kf);
        return o ? cl_origin_set(L, kt, o->source, o->where) : 0;
}

static int names_of(struct config_loader *L, const char **names) {
        for (size_t i = 0; i < L->n_targets; i++)
                names[i] = L->targets[i].t.name;
        return (int)L->n_targets;
}

static int inherit(struct config_loader *L, struct config_stage_target *st) {
        const char *names[CONFIG_TARGETS_MAX], *name = st->t.name;
        struct config_stage_target *base = find(L, st->t.extends);
        int r = 0;
        if (!base) {
                char known[512];
                strv_join(known, sizeof(known), names, (size_t)names_of(L, names), 10);
                return cl_fail_at(
                        L, st->path, st->extends_line, st->extends_col,
                        "targets.%s.extends: no profile '%s' (known: %s)", name, st->t.extends, known);
        }
        if (base == st || base->t.extends)
                return cl_fail_at(
                        L, st->path, st->extends_line, st->extends_col,
                        "targets.%s.extends: '%s' %s; extends is one level", name, st->t.extends,
                        base == st ? "is this profile" : "extends another profile itself");
        if (!st->engine_given && base->engine_given) {
                st->t.engine = base->t.engine;
                st->engine_given = true;
                r = copy_origin(L, name, base->t.name, "engine");
        }
        if (r >= 0 && !st->t.compose && base->t.compose) {
                st->t.compose = base->t.compose;
                r = copy_origin(L, name, base->t.name, "compose");
        }
        if (r >= 0 && !st->t.containers && base->t.containers) {
                st->t.containers = base->t.containers;
                st->t.n_containers = base->t.n_containers;
                r = copy_origin(L, name, base->t.name, "containers");
        }
        return r;
}

static int select_target(struct config_loader *L, const char *selected, struct config_stage_target **ret) {
        const char *names[CONFIG_TARGETS_MAX];
        char known[512];
        *ret = NULL;
        if (!selected) {
                if (L->n_targets == 1)
                        *ret = &L->targets[0];
                return *ret ? cl_origin_set(L, "target_profile", CONFIG_SOURCE_DEFAULT, "the only profile")
                            : 0;
        }
        if ((*ret = find(L, selected)))
                return cl_origin_set(L, "target_profile", CONFIG_SOURCE_FLAG, "--target");
        size_t n = (size_t)names_of(L, names);
        if (n == 0)
                return cl_fail_at(
                        L, NULL, 0, 0, "--target %s: the configuration has no target profiles (targets:)",
                        selected);
        strv_join(known, sizeof(known), names, n, 20);
        const char *near = suggest_closest(selected, names, n);
        if (near)
                return cl_fail_at(
                        L, NULL, 0, 0, "unknown target profile '%s' (did you mean '%s'? known: %s)",
                        selected, near, known);
        return cl_fail_at(L, NULL, 0, 0, "unknown target profile '%s' (known: %s)", selected, known);
}

int config_targets_finish(struct config_loader *L, const char *selected) {
        struct mayhem_config *c = L->c;
        struct config_stage_target *sel = NULL;
        int r = 0;
        for (size_t i = 0; r >= 0 && i < L->n_targets; i++)
                if (L->targets[i].t.extends)
                        r = inherit(L, &L->targets[i]);
        if (r < 0 || (r = select_target(L, selected, &sel)) < 0)
                return r;
        struct config_target *all = arena_alloc_array(&c->arena, L->n_targets + 1, sizeof(*all));
        if (!all)
                return cl_oom(L);
        for (size_t i = 0; i < L->n_targets; i++)
                all[i] = L->targets[i].t;
        c->targets = all;
        c->n_targets = L->n_targets;
        c->target = sel ? &all[sel - L->targets] : NULL;
        const struct config_origin *rt = cl_origin_get(L, "runtime");
        if (sel && sel->engine_given && (!rt || rt->source != CONFIG_SOURCE_FLAG)) {
                char key[128];
                snprintf(key, sizeof(key), "targets.%s.engine", sel->t.name);
                const struct config_origin *o = cl_origin_get(L, key);
                c->runtime = sel->t.engine;
                r = cl_origin_set(L, "runtime", o ? o->source : CONFIG_SOURCE_DEFAULT, o ? o->where : NULL);
        }
        return r;
}
