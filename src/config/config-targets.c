#include "config-internal.h"

#include <stdio.h>
#include <string.h>

#include "basic/strv.h"
#include "basic/suggest.h"

/* Target profiles (`targets:`, alias `profiles:`): engine, compose,
 * containers, extends. A profile named again by a later layer replaces the
 * earlier one whole; extends is one level and applied after every layer. */

static const char *const fields[] = { "engine", "compose", "containers", "extends" };

/* The reference's fields this build refuses, with why. */
static const struct {
        const char *key, *why;
} refused[] = {
        { "context", "a Kubernetes field; this build drives Docker and Podman only" },
        { "namespace", "a Kubernetes field; this build drives Docker and Podman only" },
        { "workload_selector", "a Kubernetes field; this build drives Docker and Podman only" },
        { "capability_policy", "a Kubernetes field; this build drives Docker and Podman only" },
        { "env_ref", "a Kubernetes field; this build drives Docker and Podman only" },
        { "observability", "observability belongs in the drill (observability:)" },
        { "policy",
          "a per-profile policy is not supported (the reference did not enforce it either); use policy:" },
        { "targets", "scope a profile with containers: [...]" },
};

static struct config_stage_target *find(struct config_loader *L, const char *name) {
        for (size_t i = 0; i < L->n_targets; i++)
                if (strcmp(L->targets[i].t.name, name) == 0)
                        return &L->targets[i];
        return NULL;
}

static int set_origin(
        struct config_loader *L, const char *name, const char *field, enum config_source s,
        const char *where) {
        char key[128];
        snprintf(key, sizeof(key), "targets.%s.%s", name, field);
        return cl_origin_set(L, key, s, where);
}

static int check_fields(struct config_loader *L, const char *name, const struct ynode *map) {
        for (size_t i = 0; i < map->n_pairs; i++)
                for (size_t j = 0; j < sizeof(refused) / sizeof(refused[0]); j++)
                        if (strcmp(map->pairs[i].key->text, refused[j].key) == 0)
                                return cl_fail(
                                        L, map->pairs[i].key, "targets.%s.%s: not supported: %s", name,
                                        refused[j].key, refused[j].why);
        return cl_check_keys(L, map, fields, sizeof(fields) / sizeof(fields[0]));
}

static int read_str(
        struct config_loader *L, const char *name, const char *field, const struct ynode *v,
        const char **ret) {
        if (v->kind != YNODE_SCALAR || v->text[0] == '\0')
                return cl_fail(
                        L, v, "targets.%s.%s: expected a non-empty string, got %s", name, field,
                        ynode_describe(v));
        *ret = arena_strdup(&L->c->arena, v->text);
        if (!*ret)
                return cl_oom(L);
        const char *where = cl_where(L, v);
        return where ? set_origin(L, name, field, L->source, where) : cl_oom(L);
}

static int read_engine(struct config_loader *L, struct config_stage_target *st, const struct ynode *v) {
        const char *e = NULL;
        int r = read_str(L, st->t.name, "engine", v, &e);
        if (r < 0)
                return r;
        if (strcmp(e, "kubernetes") == 0)
                return cl_fail(
                        L, v,
                        "targets.%s.engine: 'kubernetes' is not supported by this build (docker or podman)",
                        st->t.name);
        if (strcmp(e, "docker") != 0 && strcmp(e, "podman") != 0)
                return cl_fail(L, v, "targets.%s.engine: '%s' is not docker or podman", st->t.name, e);
        st->t.engine = e;
        st->engine_given = true;
        return 0;
}

/* compose: relative to the directory of the file that names it. */
static int read_compose(struct config_loader *L, struct config_stage_target *st, const struct ynode *v) {
        const char *c = NULL;
        int r = read_str(L, st->t.name, "compose", v, &c);
        if (r < 0)
                return r;
        if (c[0] != '/' && L->dir && strcmp(L->dir, ".") != 0) {
                char buf[4096];
                snprintf(buf, sizeof(buf), "%s/%s", L->dir, c);
                if (!(c = arena_strdup(&L->c->arena, buf)))
                        return cl_oom(L);
        }
        st->t.compose = c;
        return 0;
}

static int read_profile(struct config_loader *L, struct config_stage_target *st, const struct ynode *map) {
        const struct ynode *v;
        const char *name = st->t.name;
        int r = 0;
        if (ynode_is_null(map))
                return 0;
        if (map->kind != YNODE_MAP)
                return cl_fail(L, map, "targets.%s: expected a mapping, got %s", name, ynode_describe(map));
        if ((r = check_fields(L, name, map)) < 0)
                return r;
        if ((v = ynode_get(map, "engine")) && !ynode_is_null(v))
                r = read_engine(L, st, v);
        if (r >= 0 && (v = ynode_get(map, "compose")) && !ynode_is_null(v))
                r = read_compose(L, st, v);
        if (r >= 0 && (v = ynode_get(map, "extends")) && !ynode_is_null(v)) {
                st->extends_line = v->line;
                st->extends_col = v->col;
                r = read_str(L, name, "extends", v, &st->t.extends);
        }
        if (r >= 0 && (v = ynode_get(map, "containers")) && !ynode_is_null(v)) {
                char key[128];
                snprintf(key, sizeof(key), "targets.%s.containers", name);
                const char *where = cl_where(L, v);
                if (!where)
                        return cl_oom(L);
                if ((r = cl_strs(L, key, v, &st->t.containers, &st->t.n_containers)) >= 0)
                        r = cl_origin_set(L, key, L->source, where);
        }
        return r;
}

int config_read_targets(struct config_loader *L, const struct ynode *map) {
        if (map->kind != YNODE_MAP)
                return cl_fail(
                        L, map, "targets: expected a mapping of profile names, got %s", ynode_describe(map));
        for (size_t i = 0; i < map->n_pairs; i++) {
                const struct ynode *k = map->pairs[i].key;
                char prefix[128];
                if (!cl_name_valid(k->text))
                        return cl_fail(
                                L, k, "target profile name '%s' must match [a-zA-Z0-9][a-zA-Z0-9._-]{0,63}",
                                k->text);
                struct config_stage_target *st = find(L, k->text);
                if (!st && L->n_targets >= CONFIG_TARGETS_MAX)
                        return cl_fail(L, k, "targets: at most %u profiles", CONFIG_TARGETS_MAX);
                if (!st)
                        st = &L->targets[L->n_targets++];
                snprintf(prefix, sizeof(prefix), "targets.%s.", k->text);
                cl_origin_drop_prefix(L, prefix); /* a later layer replaces the profile whole */
                *st = (struct config_stage_target){
                        .t = { .name = arena_strdup(&L->c->arena, k->text), .engine = "docker" },
                        .path = L->path,
                        .line = k->line,
                        .col = k->col,
                };
                if (!st->t.name)
                        return cl_oom(L);
                int r = set_origin(L, st->t.name, "engine", CONFIG_SOURCE_DEFAULT, NULL);
                if (r < 0 || (r = read_profile(L, st, map->pairs[i].value)) < 0)
                        return r;
        }
        return 0;
}
