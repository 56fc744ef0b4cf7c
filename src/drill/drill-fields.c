#include "drill-parse-internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "basic/parse-number.h"
#include "basic/strv.h"
#include "basic/suggest.h"
#include "basic/units.h"

size_t dp_enter_key(struct dparser *p, const char *key) {
        size_t mark = p->where_len;
        int n = snprintf(p->where + mark, sizeof(p->where) - mark, "%s%s", mark ? "." : "", key);
        if (n > 0)
                p->where_len = MIN(mark + (size_t)n, sizeof(p->where) - 1);
        return mark;
}

size_t dp_enter_index(struct dparser *p, size_t i) {
        size_t mark = p->where_len;
        int n = snprintf(p->where + mark, sizeof(p->where) - mark, "[%zu]", i);
        if (n > 0)
                p->where_len = MIN(mark + (size_t)n, sizeof(p->where) - 1);
        return mark;
}

void dp_leave(struct dparser *p, size_t mark) {
        p->where_len = mark;
        p->where[mark] = '\0';
}

struct srcpos dp_pos(const struct ynode *n) {
        return (struct srcpos){ .line = n ? n->line : 0, .col = n ? n->col : 0 };
}

_printf_(3, 0) static int fail_va(struct dparser *p, struct srcpos pos, const char *fmt, va_list ap) {
        char msg[MH_ERROR_MSG_MAX];
        vsnprintf(msg, sizeof(msg), fmt, ap);
        int r = p->where_len ? mh_error_at(p->reterr, p->path, pos.line, pos.col, "%s: %s", p->where, msg)
                             : mh_error_at(p->reterr, p->path, pos.line, pos.col, "%s", msg);
        dp_error_oneline(p->reterr);
        return r;
}

void dp_error_oneline(struct mh_error *e) {
        for (char *c = e ? e->msg : NULL; c && *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        *c = '?';
}

int dp_fail_pos(struct dparser *p, struct srcpos pos, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_va(p, pos, fmt, ap);
        va_end(ap);
        return r;
}

int dp_fail(struct dparser *p, const struct ynode *n, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = fail_va(p, dp_pos(n), fmt, ap);
        va_end(ap);
        return r;
}

int dp_oom(struct dparser *p) {
        return mh_error_set(
                p->reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "%s: out of memory", p->path);
}

const struct ynode *dp_get(const struct ynode *map, const char *key) {
        const struct ynode *v = ynode_get(map, key);
        return ynode_is_null(v) ? NULL : v;
}

static const char *kind_name(enum ynode_kind k) {
        return k == YNODE_MAP ? "a mapping" : k == YNODE_SEQ ? "a list" : "a single value";
}

int dp_want(struct dparser *p, const struct ynode *n, enum ynode_kind kind) {
        if (n->kind != kind)
                return dp_fail(p, n, "expected %s, got %s", kind_name(kind), ynode_describe(n));
        return 0;
}

int dp_want_list(struct dparser *p, const struct ynode *n, size_t min, size_t max) {
        int r = dp_want(p, n, YNODE_SEQ);
        if (r < 0)
                return r;
        if (n->n_items < min && min == 1)
                return dp_fail(p, n, "must not be empty");
        if (n->n_items < min)
                return dp_fail(p, n, "needs at least %zu entries", min);
        if (n->n_items > max)
                return dp_fail(p, n, "has %zu entries, more than the limit of %zu", n->n_items, max);
        return 0;
}

int dp_check_keys(struct dparser *p, const struct ynode *map, const char *const *allowed) {
        size_t n_allowed = 0;
        while (allowed[n_allowed])
                n_allowed++;
        for (size_t i = 0; i < map->n_pairs; i++) {
                const struct ynode *key = map->pairs[i].key;
                bool known = false;
                for (size_t j = 0; j < n_allowed && !known; j++)
                        known = strcmp(key->text, allowed[j]) == 0;
                if (known)
                        continue;
                const char *near = suggest_closest(key->text, allowed, n_allowed);
                if (near)
                        return dp_fail(p, key, "unknown key '%s' (did you mean '%s'?)", key->text, near);
                return dp_fail(p, key, "unknown key '%s'", key->text);
        }
        return 0;
}

int dp_require(struct dparser *p, const struct ynode *map, const char *key) {
        if (!dp_get(map, key))
                return dp_fail(p, map, "missing required key '%s'", key);
        return 0;
}

int dp_scalar(struct dparser *p, const struct ynode *n, const char **ret_text) {
        if (n->kind != YNODE_SCALAR)
                return dp_fail(p, n, "expected a single value, got %s", ynode_describe(n));
        *ret_text = n->text;
        return 0;
}

int dp_str_node(struct dparser *p, const struct ynode *v, const char **ret) {
        const char *text = NULL;
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        char *copy = arena_strdup(p->arena, text);
        if (!copy)
                return dp_oom(p);
        *ret = copy;
        return 0;
}

int dp_int_node(struct dparser *p, const struct ynode *v, int64_t min, int64_t max, int64_t *ret) {
        const char *text = NULL;
        int64_t x;
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        if (parse_int64(text, &x) < 0)
                return dp_fail(p, v, "expected a whole number, got '%s'", text);
        if (x < min || x > max)
                return dp_fail(p, v, "%" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")", x, min, max);
        *ret = x;
        return 0;
}

int dp_dur_node(struct dparser *p, const struct ynode *v, int64_t min_ms, int64_t max_ms, int64_t *ret) {
        const char *text = NULL;
        char lo[32], hi[32];
        int64_t x;
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        r = parse_duration_ms(text, &x);
        if (r == -EDOM)
                return dp_fail(p, v, "'%s' is finer than the 1ms resolution of durations", text);
        if (r == -ERANGE)
                return dp_fail(p, v, "'%s' is too long", text);
        if (r < 0)
                return dp_fail(p, v, "invalid duration '%s' (use e.g. 500ms, 10s, 5m, 1.5h, 2d)", text);
        if (x < min_ms || x > max_ms) {
                format_duration_ms(lo, sizeof(lo), min_ms);
                format_duration_ms(hi, sizeof(hi), max_ms);
                return dp_fail(p, v, "%s is out of range (%s..%s)", text, lo, hi);
        }
        *ret = x;
        return 0;
}

int dp_num_node(struct dparser *p, const struct ynode *v, double min, double max, double *ret) {
        const char *text = NULL;
        double x;
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        if (parse_double(text, &x) < 0)
                return dp_fail(p, v, "expected a number, got '%s'", text);
        if (x < min || x > max)
                return dp_fail(p, v, "%s is out of range (%g..%g)", text, min, max);
        *ret = x;
        return 0;
}

static int parse_bool_text(const char *s, bool *ret) {
        static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return *ret = true, 0;
                if (strcasecmp(s, no[i]) == 0)
                        return *ret = false, 0;
        }
        return -EINVAL;
}

int dp_bool_node(struct dparser *p, const struct ynode *v, bool *ret) {
        const char *text = NULL;
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        if (parse_bool_text(text, ret) < 0)
                return dp_fail(p, v, "expected true or false, got '%s'", text);
        return 0;
}

/* The keyed readers: absent or null leaves *ret alone; otherwise the value is
 * read with the key entered in the where path. */
#define KEYED(p, map, key, call)                                                                            \
        __extension__({                                                                                     \
                const struct ynode *v = dp_get((map), (key));                                               \
                int _r_ = 0;                                                                                \
                if (v) {                                                                                    \
                        size_t _mark_ = dp_enter_key((p), (key));                                           \
                        _r_ = (call);                                                                       \
                        if (_r_ >= 0)                                                                       \
                                dp_leave((p), _mark_);                                                      \
                }                                                                                           \
                _r_;                                                                                        \
        })

int dp_str(struct dparser *p, const struct ynode *map, const char *key, const char **ret) {
        return KEYED(p, map, key, dp_str_node(p, v, ret));
}

int dp_id(struct dparser *p, const struct ynode *map, const char *key, const char **ret) {
        const char *prev = *ret;
        int r = dp_str(p, map, key, ret);
        if (r < 0 || *ret == prev || **ret)
                return r;
        size_t mark = dp_enter_key(p, key);
        r = dp_fail(p, dp_get(map, key), "must not be empty");
        dp_leave(p, mark);
        return r;
}

int dp_int(
        struct dparser *p, const struct ynode *map, const char *key, int64_t min, int64_t max,
        int64_t *ret) {
        return KEYED(p, map, key, dp_int_node(p, v, min, max, ret));
}

int dp_dur(
        struct dparser *p, const struct ynode *map, const char *key, int64_t min_ms, int64_t max_ms,
        int64_t *ret) {
        return KEYED(p, map, key, dp_dur_node(p, v, min_ms, max_ms, ret));
}

int dp_num(
        struct dparser *p, const struct ynode *map, const char *key, double min, double max, bool *ret_has,
        double *ret) {
        int r = KEYED(p, map, key, dp_num_node(p, v, min, max, ret));
        if (r >= 0 && ret_has && dp_get(map, key))
                *ret_has = true;
        return r;
}

int dp_bool(struct dparser *p, const struct ynode *map, const char *key, bool *ret) {
        return KEYED(p, map, key, dp_bool_node(p, v, ret));
}

int dp_enum_node(struct dparser *p, const struct ynode *v, const char *const *names, size_t n, int *ret) {
        const char *text = NULL;
        char choices[512];
        int r = dp_scalar(p, v, &text);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (names[i] && strcmp(text, names[i]) == 0) {
                        *ret = (int)i;
                        return 0;
                }
        strv_join(choices, sizeof(choices), names, n, 0);
        const char *near = suggest_closest(text, names, n);
        if (near)
                return dp_fail(p, v, "'%s' is not one of %s (did you mean '%s'?)", text, choices, near);
        return dp_fail(p, v, "'%s' is not one of %s", text, choices);
}

int dp_enum(
        struct dparser *p, const struct ynode *map, const char *key, const char *const *names, size_t n,
        int *ret) {
        return KEYED(p, map, key, dp_enum_node(p, v, names, n, ret));
}

int dp_names(struct dparser *p, const struct ynode *list, size_t min, struct drill_names *ret) {
        int r = dp_want_list(p, list, min, DRILL_LIST_MAX);
        if (r < 0)
                return r;
        ret->n = list->n_items;
        ret->v = arena_alloc_array(p->arena, list->n_items, sizeof(*ret->v));
        ret->pos = arena_alloc_array(p->arena, list->n_items, sizeof(*ret->pos));
        if (!ret->v || !ret->pos)
                return dp_oom(p);
        for (size_t i = 0; i < list->n_items; i++) {
                const struct ynode *item = list->items[i];
                size_t mark = dp_enter_index(p, i);
                if ((r = dp_str_node(p, item, &ret->v[i])) < 0)
                        return r;
                if (!*ret->v[i])
                        return dp_fail(p, item, "must not be empty");
                dp_leave(p, mark);
                ret->pos[i] = dp_pos(item);
        }
        return 0;
}
