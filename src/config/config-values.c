#include "config-internal.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "basic/parse-number.h"
#include "basic/string-table.h"
#include "basic/suggest.h"

#define AT(L, off, type) ((type *)(void *)((char *)(L)->c + (off)))

int cl_check_keys(struct config_loader *L, const struct ynode *map, const char *const *allowed, size_t n) {
        for (size_t i = 0; i < map->n_pairs; i++) {
                const struct ynode *key = map->pairs[i].key;
                bool known = false;
                for (size_t j = 0; j < n && !known; j++)
                        known = strcmp(key->text, allowed[j]) == 0;
                if (known)
                        continue;
                const char *near = suggest_closest(key->text, allowed, n);
                if (near)
                        return cl_fail(L, key, "unknown key '%s' (did you mean '%s'?)", key->text, near);
                return cl_fail(L, key, "unknown key '%s'", key->text);
        }
        return 0;
}

static int scalar(struct config_loader *L, const char *key, const struct ynode *v, const char **ret) {
        if (v->kind != YNODE_SCALAR)
                return cl_fail(L, v, "%s: expected a single value, got %s", key, ynode_describe(v));
        *ret = v->text;
        return 0;
}

static int read_num(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        const char *t = NULL;
        double x;
        int r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        if (parse_double(t, &x) < 0)
                return cl_fail(L, v, "%s: expected a number, got '%s'", k->key, t);
        if (k->open_min ? x <= k->min : x < k->min)
                return cl_fail(
                        L, v, "%s: %s is out of range (%s %g)", k->key, t,
                        k->open_min ? "must be >" : "must be >=", k->min);
        if (x > k->max)
                return cl_fail(L, v, "%s: %s is out of range (at most %g)", k->key, t, k->max);
        *AT(L, k->off, double) = x;
        return 0;
}

static int read_int(struct config_loader *L, const struct ckey *k, const struct ynode *v, int64_t *ret) {
        const char *t = NULL;
        int64_t x;
        int r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        if (parse_int64(t, &x) < 0)
                return cl_fail(L, v, "%s: expected a whole number, got '%s'", k->key, t);
        if ((double)x < k->min || (double)x > k->max)
                return cl_fail(
                        L, v, "%s: %" PRId64 " is out of range (%.0f..%.0f)", k->key, x, k->min, k->max);
        *ret = x;
        return 0;
}

static int read_bool(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        const char *t = NULL;
        int r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        if (strcasecmp(t, "true") == 0 || strcasecmp(t, "false") == 0) {
                *AT(L, k->off, bool) = strcasecmp(t, "true") == 0;
                return 0;
        }
        return cl_fail(L, v, "%s: expected true or false, got '%s'", k->key, t);
}

static int read_str(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        const char *t = NULL;
        int r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        if (t[0] == '\0')
                return cl_fail(L, v, "%s: must not be empty", k->key);
        const char *copy = arena_strdup(&L->c->arena, t); /* the document goes, the config stays */
        if (!copy)
                return cl_oom(L);
        *AT(L, k->off, const char *) = copy;
        return 0;
}

static int read_enum(
        struct config_loader *L, const struct ckey *k, const struct ynode *v, const char *const *names,
        size_t n, int *ret) {
        const char *t = NULL;
        int r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        int x = string_table_lookup(names, n, t);
        if (x >= 0)
                return *ret = x, 0;
        const char *near = suggest_closest(t, names, n);
        char all[128] = "";
        for (size_t i = 0; i < n; i++)
                snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s", i ? ", " : "", names[i]);
        if (near)
                return cl_fail(L, v, "%s: '%s' is not one of %s (did you mean '%s'?)", k->key, t, all, near);
        return cl_fail(L, v, "%s: '%s' is not one of %s", k->key, t, all);
}

static int read_runtime(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        static const char *const names[] = { "docker", "podman" };
        const char *t = NULL;
        int x, r = scalar(L, k->key, v, &t);
        if (r < 0)
                return r;
        if (strcmp(t, "kubernetes") == 0)
                return cl_fail(
                        L, v, "%s: 'kubernetes' is not supported by this build (docker or podman)", k->key);
        if ((r = read_enum(L, k, v, names, 2, &x)) < 0)
                return r;
        *AT(L, k->off, const char *) = names[x];
        return 0;
}

static int read_scalar_kind(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        static const char *const risks[] = { "low", "medium", "high", "critical" };
        static const char *const levels[] = { "DEBUG", "INFO", "WARNING", "ERROR" };
        int x, r;
        switch (k->kind) {
        case CK_NUM: return read_num(L, k, v);
        case CK_INT: return read_int(L, k, v, AT(L, k->off, int64_t));
        case CK_SEED:
                if ((r = read_int(L, k, v, AT(L, k->off, int64_t))) >= 0)
                        *AT(L, k->aux, bool) = true;
                return r;
        case CK_BOOL: return read_bool(L, k, v);
        case CK_STR: return read_str(L, k, v);
        case CK_RUNTIME: return read_runtime(L, k, v);
        case CK_RISK_OPT:
                if ((r = read_enum(L, k, v, risks, 4, &x)) < 0)
                        return r;
                *AT(L, k->off, enum risk) = risk_from_string(risks[x]);
                *AT(L, k->aux, bool) = true;
                return 0;
        case CK_LOG_LEVEL:
                if ((r = read_enum(L, k, v, levels, 4, &x)) < 0)
                        return r;
                *AT(L, k->off, enum log_level) = log_level_from_string(levels[x]);
                return 0;
        default: return cl_fail(L, v, "%s: cannot be read here", k->key);
        }
}

/* null: what it means for this key, or an error where it means nothing. */
static int read_null(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        switch (k->kind) {
        case CK_RISK_OPT:
        case CK_SEED: *AT(L, k->aux, bool) = false; return 0;
        case CK_FAULTS_OPT:
                *AT(L, k->off, const char *const *) = NULL;
                *AT(L, k->aux, size_t) = 0;
                return 0;
        case CK_FAULTS:
        case CK_PAIRS:
        case CK_STRS:
                *AT(L, k->off, const void *) = NULL;
                *AT(L, k->aux, size_t) = 0;
                return 0;
        default:
                return cl_fail(
                        L, v, "%s: null is not allowed here (remove the key to keep the default)", k->key);
        }
}

int cl_read_leaf(struct config_loader *L, const struct ckey *k, const struct ynode *v) {
        const char *where = cl_where(L, v);
        int r;
        if (!where)
                return cl_oom(L);
        if (ynode_is_null(v))
                r = read_null(L, k, v);
        else if (
                k->kind == CK_FAULTS_OPT || k->kind == CK_FAULTS || k->kind == CK_PAIRS ||
                k->kind == CK_STRS)
                r = config_read_list(L, k, v);
        else
                r = read_scalar_kind(L, k, v);
        return r < 0 ? r : cl_origin_set(L, k->key, L->source, where);
}

bool cl_name_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 64)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-')))
                        return false;
        }
        return true;
}
