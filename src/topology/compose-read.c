#include "compose-internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "basic/units.h"
#include "basic/parse-number.h"

int compose_fail(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *fmt, ...) {
        char msg[MH_ERROR_MSG_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (!where || !*where)
                return mh_error_at(c->reterr, c->path, at->line, at->col, "%s", msg);
        return mh_error_at(c->reterr, c->path, at->line, at->col, "%s: %s", where, msg);
}

int compose_warn(
        const struct compose_ctx *c, const struct ynode *at, const char *where, const char *fmt, ...) {
        struct topology *t = c->t;
        char msg[MH_ERROR_MSG_MAX];
        va_list ap;

        if (t->n_warnings >= COMPOSE_WARNINGS_MAX)
                return 0;
        if (!t->warnings &&
            !(t->warnings = arena_alloc_array(&t->arena, COMPOSE_WARNINGS_MAX, sizeof(char *))))
                return compose_oom(c);
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (t->n_warnings == COMPOSE_WARNINGS_MAX - 1)
                snprintf(
                        msg, sizeof(msg), "more than %u warnings; the rest are not shown",
                        COMPOSE_WARNINGS_MAX - 1);
        size_t size = strlen(c->path) + strlen(where) + strlen(msg) + 48;
        char *line = arena_alloc(&t->arena, size);
        if (!line)
                return compose_oom(c);
        snprintf(line, size, "%s:%u:%u: %s%s%s", c->path, at->line, at->col, where, *where ? ": " : "", msg);
        t->warnings[t->n_warnings++] = line;
        return 0;
}

int compose_oom(const struct compose_ctx *c) {
        return mh_error_set(
                c->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", c->path);
}

void compose_where_key(char *buf, const char *parent, const char *key) {
        snprintf(buf, COMPOSE_WHERE_MAX, "%s%s%s", parent, *parent ? "." : "", key);
}

void compose_where_index(char *buf, const char *parent, size_t i) {
        snprintf(buf, COMPOSE_WHERE_MAX, "%s[%zu]", parent, i);
}

void compose_where_entry(char *buf, const char *parent, const struct compose_entry *e) {
        if (e->value)
                compose_where_key(buf, parent, e->name);
        else
                compose_where_index(buf, parent, e->index);
}

static const char *kind_name(enum ynode_kind kind) {
        switch (kind) {
        case YNODE_MAP: return "a mapping";
        case YNODE_SEQ: return "a list";
        default: return "a string";
        }
}

int compose_expect(
        const struct compose_ctx *c, const struct ynode *node, enum ynode_kind kind, bool null_ok,
        const char *where) {
        if (!node || ynode_is_null(node)) {
                if (null_ok)
                        return 0;
                assert(node); /* callers look a required key up themselves */
                return compose_fail(c, node, where, "expected %s, not null", kind_name(kind));
        }
        if (node->kind != kind)
                return compose_fail(
                        c, node, where, "expected %s, not %s", kind_name(kind), ynode_describe(node));
        return 0;
}

int compose_string(
        const struct compose_ctx *c, const struct ynode *node, const char *where, const char **ret) {
        *ret = NULL;
        if (!node || ynode_is_null(node))
                return 0;
        if (node->kind != YNODE_SCALAR)
                return compose_fail(c, node, where, "expected a string, not %s", ynode_describe(node));
        return compose_interpolate(c, node, where, node->text, ret);
}

int compose_keep(const struct compose_ctx *c, const char *s, char **ret) {
        *ret = arena_strdup(&c->t->arena, s);
        return *ret ? 0 : compose_oom(c);
}

int compose_uint(
        const struct compose_ctx *c, const struct ynode *node, const char *where, int64_t max,
        int64_t *ret) {
        const char *s;
        int64_t v;
        int r = compose_string(c, node, where, &s);
        if (r < 0 || !s)
                return r;
        if (parse_int64(s, &v) < 0 || v < 0 || v > max)
                return compose_fail(
                        c, node, where, "expected a whole number from 0 to %" PRId64 ", not '%s'", max, s);
        *ret = v;
        return 0;
}

int compose_bool(const struct compose_ctx *c, const struct ynode *node, const char *where, bool *ret) {
        static const char *const yes[] = { "true", "yes", "on", "y", "1" };
        static const char *const no[] = { "false", "no", "off", "n", "0" };
        const char *s;
        int r = compose_string(c, node, where, &s);
        if (r < 0 || !s)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return *ret = true, 0;
                if (strcasecmp(s, no[i]) == 0)
                        return *ret = false, 0;
        }
        return compose_fail(c, node, where, "expected true or false, not '%s'", s);
}

int compose_duration(
        const struct compose_ctx *c, const struct ynode *node, const char *where, int64_t *ret) {
        const char *s;
        int r = compose_string(c, node, where, &s);
        if (r < 0 || !s)
                return r;
        if (parse_go_duration_ms(s, ret) < 0)
                return compose_fail(c, node, where, "invalid duration '%s' (use e.g. 500ms, 30s, 1m30s)", s);
        return 0;
}

int compose_string_list(
        const struct compose_ctx *c, const struct ynode *node, const char *where, size_t max, char ***ret,
        size_t *ret_n) {
        char item_where[COMPOSE_WHERE_MAX];
        int r = compose_expect(c, node, YNODE_SEQ, true, where);
        if (r < 0 || !node || ynode_is_null(node))
                return r;
        if (node->n_items > max)
                return compose_fail(c, node, where, "more than %zu entries", max);
        char **items = arena_alloc_array(&c->t->arena, node->n_items, sizeof(char *));
        if (!items)
                return compose_oom(c);
        for (size_t i = 0; i < node->n_items; i++) {
                const char *s;
                compose_where_index(item_where, where, i);
                r = compose_string(c, node->items[i], item_where, &s);
                if (r >= 0 && !s)
                        r = compose_fail(c, node->items[i], item_where, "expected a string, not null");
                if (r >= 0)
                        r = compose_keep(c, s, &items[i]);
                if (r < 0)
                        return r;
        }
        *ret = items;
        *ret_n = node->n_items;
        return 0;
}

static int cmp_entry(const void *a, const void *b) {
        const struct compose_entry *x = a, *y = b;
        int r = strcmp(x->name, y->name);
        return r ? r : (x->index > y->index) - (x->index < y->index);
}

static int read_entry(
        const struct compose_ctx *c, const struct ynode *node, const char *where, size_t i,
        struct compose_entry *e) {
        char item_where[COMPOSE_WHERE_MAX];
        *e = (struct compose_entry){ .index = i };
        if (node->kind == YNODE_MAP) {
                e->name = node->pairs[i].key->text;
                e->at = node->pairs[i].key;
                e->value = node->pairs[i].value;
                return 0;
        }
        e->at = node->items[i];
        compose_where_index(item_where, where, i);
        int r = compose_string(c, e->at, item_where, &e->name);
        if (r >= 0 && (!e->name || !*e->name))
                r = compose_fail(
                        c, e->at, item_where, "expected a name, not %s",
                        e->name ? "an empty string" : "null");
        return r;
}

/* Sorting a copy finds duplicates in O(n log n); the later one is blamed. */
static int check_duplicates(
        const struct compose_ctx *c, const struct compose_entry *entries, size_t n, const char *where) {
        char item_where[COMPOSE_WHERE_MAX];
        struct compose_entry *sorted = arena_memdup(c->scratch, entries, MAX(n, 1) * sizeof(*entries));
        if (!sorted)
                return compose_oom(c);
        qsort(sorted, n, sizeof(*sorted), cmp_entry);
        for (size_t i = 1; i < n; i++)
                if (streq(sorted[i - 1].name, sorted[i].name)) {
                        compose_where_entry(item_where, where, &sorted[i]);
                        return compose_fail(
                                c, sorted[i].at, item_where, "'%s' is listed twice", sorted[i].name);
                }
        return 0;
}

int compose_entries(
        const struct compose_ctx *c, const struct ynode *node, const char *where, size_t max,
        struct compose_entry **ret, size_t *ret_n) {
        if (!node || ynode_is_null(node)) {
                *ret_n = 0;
                return 0;
        }
        if (node->kind == YNODE_SCALAR)
                return compose_fail(
                        c, node, where, "expected a list or a mapping, not %s", ynode_describe(node));
        size_t n = node->kind == YNODE_MAP ? node->n_pairs : node->n_items;
        if (n > max)
                return compose_fail(c, node, where, "more than %zu entries", max);
        struct compose_entry *entries = arena_alloc_array(c->scratch, MAX(n, 1), sizeof(*entries));
        if (!entries)
                return compose_oom(c);
        for (size_t i = 0; i < n; i++) {
                int r = read_entry(c, node, where, i, &entries[i]);
                if (r < 0)
                        return r;
        }
        int r = check_duplicates(c, entries, n, where);
        if (r < 0)
                return r;
        *ret = entries;
        *ret_n = n;
        return 0;
}
