#include "config-internal.h"

#include <stdio.h>
#include <string.h>

#define API_VERSION "mayhem/v1"

/* The names of the keys directly under prefix ("" for the top). */
static size_t children(const char *prefix, const char **names, size_t max) {
        size_t n = 0, plen = strlen(prefix);
        for (size_t i = 0; i < config_n_keys && n < max; i++) {
                const char *k = config_keys[i].key;
                if (plen && (strncmp(k, prefix, plen) != 0 || k[plen] != '.'))
                        continue;
                const char *rest = plen ? k + plen + 1 : k;
                if (!strchr(rest, '.'))
                        names[n++] = rest;
        }
        return n;
}

static void join_key(char *buf, size_t size, const char *prefix, const char *name) {
        snprintf(buf, size, "%s%s%s", prefix, *prefix ? "." : "", name);
}

/* damage_quota: null means "the defaults", not "no quota" (reference §5.3). */
static int quota_defaults(struct config_loader *L, const struct ynode *v) {
        static const char *const keys[] = { "blast_radius.damage_quota.budget_s",
                                            "blast_radius.damage_quota.per_fault_ceiling_s",
                                            "blast_radius.damage_quota.window_s" };
        const char *where = cl_where(L, v);
        if (!where)
                return cl_oom(L);
        L->c->blast_radius.damage_quota = (struct config_damage_quota){ .budget_s = 14400.0,
                                                                        .per_fault_ceiling_s = 3600.0,
                                                                        .window_s = 604800.0 };
        for (size_t i = 0; i < 3; i++) {
                int r = cl_origin_set(L, keys[i], L->source, where);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int read_binaries(struct config_loader *L, const struct ynode *v) {
        if (v->kind != YNODE_MAP)
                return cl_fail(L, v, "toolkit.binaries: expected a mapping, got %s", ynode_describe(v));
        if (v->n_pairs == 0)
                return 0;
        return cl_warn(
                L,
                "%s:%u:%u: toolkit.binaries is ignored: mayhem runs no tools in a target (its agent "
                "applies every fault from the host)",
                L->path, v->line, v->col);
}

static int read_map(struct config_loader *L, const char *prefix, const struct ynode *map);

static int read_entry(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        bool null = ynode_is_null(v);
        switch (k->kind) {
        case CK_SECTION: return null ? 0 : read_map(L, k->key, v);
        case CK_QUOTA: return null ? quota_defaults(L, v) : read_map(L, k->key, v);
        case CK_API: return 0; /* checked first */
        case CK_TARGETS: return null ? 0 : config_read_targets(L, v);
        case CK_K8S:
                if (null)
                        return 0;
                return cl_fail(
                        L, v, "%s: Kubernetes is not supported by this build; leave it null or remove it",
                        k->key);
        case CK_BINARIES: return null ? 0 : read_binaries(L, v);
        default: return cl_read_leaf(L, k, v);
        }
}

static int read_map(struct config_loader *L, const char *prefix, const struct ynode *map) {
        const char *names[64];
        char full[128];
        if (map->kind != YNODE_MAP)
                return cl_fail(
                        L, map, "%s: expected a mapping, got %s", *prefix ? prefix : "the document",
                        ynode_describe(map));
        int r = cl_check_keys(L, map, names, children(prefix, names, 64));
        if (r < 0)
                return r;
        if (!*prefix && ynode_get(map, "targets") && ynode_get(map, "profiles"))
                return cl_fail(
                        L, ynode_get(map, "profiles"),
                        "profiles: is an alias of targets:; give one of them, not both");
        for (size_t i = 0; i < map->n_pairs; i++) {
                join_key(full, sizeof(full), prefix, map->pairs[i].key->text);
                if ((r = read_entry(L, config_key_find(full), map->pairs[i].value)) < 0)
                        return r;
        }
        return 0;
}

int config_read_document(struct config_loader *L, const struct ynode *root) {
        if (root->kind != YNODE_MAP)
                return cl_fail(
                        L, root, "a configuration document is a mapping, got %s", ynode_describe(root));
        const struct ynode *api = ynode_get(root, "apiVersion");
        if (!api)
                return cl_fail(
                        L, root,
                        "missing apiVersion: " API_VERSION " (every configuration document needs it)");
        if (api->kind != YNODE_SCALAR || strcmp(api->text, API_VERSION) != 0)
                return cl_fail(
                        L, api, "apiVersion must be " API_VERSION ", got %s%s%s",
                        api->kind == YNODE_SCALAR ? "'" : "",
                        api->kind == YNODE_SCALAR ? api->text : ynode_describe(api),
                        api->kind == YNODE_SCALAR ? "'" : "");
        int r = config_check_secrets(L, root);
        if (r < 0)
                return r;
        return read_map(L, "", root);
}

int config_read_drill(struct config_loader *L, const struct ynode *root) {
        const struct ynode *cfg = ynode_get(root, "config"), *v;
        int r = 0;
        if (!cfg || cfg->kind != YNODE_MAP)
                return 0; /* the drill parser says what is wrong with it when the drill is read */
        if ((v = ynode_get(cfg, "log_level")))
                r = cl_read_leaf(L, config_key_find("log_level"), v);
        if (r >= 0 && (v = ynode_get(cfg, "risk_ceiling")))
                r = cl_read_leaf(L, config_key_find("policy.risk_ceiling"), v);
        return r;
}
