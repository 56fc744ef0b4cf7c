#include "config-internal.h"

#include <string.h>

#include "basic/suggest.h"

#define AT(L, off, type) ((type *)(void *)((char *)(L)->c + (off)))

/* "net." when some catalog id starts with it. */
static bool known_prefix(const char *s, size_t len) {
        for (size_t i = 0; i < catalog_size(); i++)
                if (strncmp(catalog_at(i)->id, s, len) == 0)
                        return true;
        return false;
}

/* The catalog's ids, or its prefixes ("net.", "dependency."), for a suggestion. */
static const char *suggest_fault(const char *word, bool prefix, char *buf, size_t size) {
        const char *cands[256];
        char prefixes[256][32];
        size_t n = 0;
        for (size_t i = 0; i < catalog_size() && n < 256; i++) {
                const char *id = catalog_at(i)->id, *dot = strchr(id, '.');
                if (!prefix) {
                        cands[n++] = id;
                        continue;
                }
                size_t len = dot ? (size_t)(dot - id) + 1 : strlen(id);
                if (len >= sizeof(prefixes[0]))
                        continue;
                memcpy(prefixes[n], id, len);
                prefixes[n][len] = '\0';
                bool seen = false;
                for (size_t j = 0; j < n && !seen; j++)
                        seen = strcmp(cands[j], prefixes[n]) == 0;
                if (!seen) {
                        cands[n] = prefixes[n];
                        n++;
                }
        }
        const char *near = suggest_closest(word, cands, n);
        if (!near)
                return NULL;
        snprintf(buf, size, "%s", near);
        return buf;
}

static int fault_id(struct config_loader *L, const char *key, const struct ynode *v, const char **ret) {
        if (v->kind != YNODE_SCALAR || v->text[0] == '\0')
                return cl_fail(L, v, "%s: expected a fault id, got %s", key, ynode_describe(v));
        const char *t = v->text;
        size_t len = strlen(t);
        bool prefix = t[len - 1] == '.';
        if (prefix ? known_prefix(t, len) : catalog_find(t) != NULL) {
                *ret = arena_strdup(&L->c->arena, t); /* the document goes, the config stays */
                return *ret ? 0 : cl_oom(L);
        }
        char near[64];
        if (suggest_fault(t, prefix, near, sizeof(near)))
                return cl_fail(
                        L, v, "%s: unknown fault %s '%s' (did you mean '%s'?)", key,
                        prefix ? "prefix" : "id", t, near);
        return cl_fail(
                L, v, "%s: unknown fault %s '%s' (mayhem discover faults lists them; a prefix ends in '.')",
                key, prefix ? "prefix" : "id", t);
}

static int want_list(struct config_loader *L, const char *key, const struct ynode *v, size_t max) {
        if (v->kind != YNODE_SEQ)
                return cl_fail(L, v, "%s: expected a list, got %s", key, ynode_describe(v));
        if (v->n_items > max)
                return cl_fail(L, v, "%s: at most %zu items, got %zu", key, max, v->n_items);
        return 0;
}

static int read_ids(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        int r = want_list(L, k->key, v, CONFIG_LIST_MAX);
        if (r < 0)
                return r;
        const char **ids = arena_alloc_array(&L->c->arena, v->n_items + 1, sizeof(*ids));
        if (!ids)
                return cl_oom(L);
        for (size_t i = 0; i < v->n_items; i++)
                if ((r = fault_id(L, k->key, v->items[i], &ids[i])) < 0)
                        return r;
        *AT(L, k->off, const char *const *) = ids; /* never NULL: [] is an empty allowlist */
        *AT(L, k->aux, size_t) = v->n_items;
        return 0;
}

static int read_pairs(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        int r = want_list(L, k->key, v, CONFIG_LIST_MAX);
        if (r < 0)
                return r;
        struct config_fault_pair *pairs = arena_alloc_array(&L->c->arena, v->n_items + 1, sizeof(*pairs));
        if (!pairs)
                return cl_oom(L);
        for (size_t i = 0; i < v->n_items; i++) {
                const struct ynode *p = v->items[i];
                if (p->kind != YNODE_SEQ || p->n_items != 2)
                        return cl_fail(L, p, "%s: each pair is a list of two fault ids, [a, b]", k->key);
                if ((r = fault_id(L, k->key, p->items[0], &pairs[i].a)) < 0 ||
                    (r = fault_id(L, k->key, p->items[1], &pairs[i].b)) < 0)
                        return r;
        }
        *AT(L, k->off, const struct config_fault_pair *) = pairs;
        *AT(L, k->aux, size_t) = v->n_items;
        return 0;
}

int cl_strs(
        struct config_loader *L, const char *key, const struct ynode *v, const char *const **ret,
        size_t *ret_n) {
        int r = want_list(L, key, v, CONFIG_LIST_MAX);
        if (r < 0)
                return r;
        const char **names = arena_alloc_array(&L->c->arena, v->n_items + 1, sizeof(*names));
        if (!names)
                return cl_oom(L);
        for (size_t i = 0; i < v->n_items; i++) {
                const struct ynode *n = v->items[i];
                if (n->kind != YNODE_SCALAR || n->text[0] == '\0')
                        return cl_fail(
                                L, n, "%s: expected a container name, got %s", key, ynode_describe(n));
                if (!(names[i] = arena_strdup(&L->c->arena, n->text)))
                        return cl_oom(L);
        }
        *ret = names;
        *ret_n = v->n_items;
        return 0;
}

int config_read_list(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        switch (k->kind) {
        case CK_FAULTS_OPT:
        case CK_FAULTS: return read_ids(L, k, v);
        case CK_PAIRS: return read_pairs(L, k, v);
        default: return cl_strs(L, k->key, v, AT(L, k->off, const char *const *), AT(L, k->aux, size_t));
        }
}
