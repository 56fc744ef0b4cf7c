#include "drill-parse-internal.h"

#include <stdio.h>
#include <string.h>

#define WAIT_MAX_MS       (24LL * 3600 * 1000)
#define UNTIL_DEFAULT_MS  60000
#define UNTIL_INTERVAL_MS 1000

static int parse_names_step(struct dparser *p, const struct ynode *v, struct drill_step *st) {
        return dp_names(p, v, 1, &st->names);
}

static int parse_wait_until(struct dparser *p, const struct ynode *v, struct drill_step *st) {
        static const char *const keys[] = { "until_check_passes", "timeout", "interval", NULL };
        const struct ynode *until = dp_get(v, "until_check_passes");
        int r = dp_check_keys(p, v, keys);
        if (r < 0)
                return r;
        st->wait_until = true;
        st->until_pos = dp_pos(until);
        st->until_timeout_ms = UNTIL_DEFAULT_MS;
        st->until_interval_ms = UNTIL_INTERVAL_MS;
        if ((r = dp_dur(p, v, "timeout", 1, WAIT_MAX_MS, &st->until_timeout_ms)) < 0 ||
            (r = dp_dur(p, v, "interval", 1, WAIT_MAX_MS, &st->until_interval_ms)) < 0)
                return r;
        size_t mark = dp_enter_key(p, "until_check_passes");
        if (until->kind == YNODE_SCALAR)
                r = dp_str_node(p, until, &st->until_check_id);
        else
                r = dp_parse_probe(p, until, &st->until_probe);
        if (r >= 0)
                dp_leave(p, mark);
        return r;
}

/* wait: 5s | wait: {duration: 5s} | wait: {until_check_passes: ID|PROBE, timeout: 60s, interval: 1s} */
static int parse_wait(struct dparser *p, const struct ynode *v, struct drill_step *st) {
        static const char *const keys[] = { "duration", NULL };
        int r;

        if (v->kind == YNODE_SCALAR)
                return dp_dur_node(p, v, 1, WAIT_MAX_MS, &st->wait_ms);
        if ((r = dp_want(p, v, YNODE_MAP)) < 0)
                return r;
        if (ynode_get(v, "until_check_passes")) {
                if (!dp_get(v, "until_check_passes"))
                        return dp_fail(
                                p, ynode_get(v, "until_check_passes"),
                                "until_check_passes needs a check id or a probe");
                return parse_wait_until(p, v, st);
        }
        if ((r = dp_check_keys(p, v, keys)) < 0 || (r = dp_require(p, v, "duration")) < 0)
                return r;
        return dp_dur(p, v, "duration", 1, WAIT_MAX_MS, &st->wait_ms);
}

static char *generated_check_id(struct dparser *p, size_t step, size_t i) {
        char id[48];
        snprintf(id, sizeof(id), "check-%04zu-%zu", step, i);
        return arena_strdup(p->arena, id);
}

/* Legacy inline check: {http: URL, expect: {status: N}}. */
static int parse_legacy_check(
        struct dparser *p, const struct ynode *n, size_t step, size_t i, struct drill_check *c) {
        static const char *const keys[] = { "http", "expect", NULL };
        static const char *const expect_keys[] = { "status", NULL };
        const struct ynode *expect = dp_get(n, "expect");
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0)
                return r;
        c->id = generated_check_id(p, step, i);
        if (!c->id)
                return dp_oom(p);
        c->pos = dp_pos(n);
        c->probe = (struct drill_probe){ .type = PROBE_HTTP,
                                         .pos = dp_pos(n),
                                         .method = "GET",
                                         .timeout_ms = 5000,
                                         .expected_status = 200 };
        if ((r = dp_url(p, n, "http", &c->probe.url)) < 0)
                return r;
        if (!expect)
                return 0;
        size_t mark = dp_enter_key(p, "expect");
        if ((r = dp_want(p, expect, YNODE_MAP)) < 0 || (r = dp_check_keys(p, expect, expect_keys)) < 0 ||
            (r = dp_int(p, expect, "status", 100, 599, &c->probe.expected_status)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int parse_check_spec(
        struct dparser *p, const struct ynode *n, size_t step, size_t i, struct drill_check *c) {
        static const char *const keys[] = { "id", "probe", "execution", "target", NULL };
        int r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "probe")) < 0 || (r = dp_id(p, n, "id", &c->id)) < 0 ||
            (r = DP_ENUM(p, n, "execution", check_locus, &c->execution)) < 0 ||
            (r = dp_id(p, n, "target", &c->target)) < 0)
                return r;
        c->pos = dp_pos(n);
        c->execution_pos = dp_get(n, "execution") ? dp_pos(dp_get(n, "execution")) : c->pos;
        c->target_pos = dp_pos(dp_get(n, "target"));
        if (!c->id && !(c->id = generated_check_id(p, step, i)))
                return dp_oom(p);
        if (c->execution != CHECK_LOCUS_HOST && !c->target)
                return dp_fail(p, n, "execution '%s' needs a 'target'", check_locus_to_string(c->execution));
        if (c->execution == CHECK_LOCUS_HOST && c->target)
                return dp_fail(
                        p, dp_get(n, "target"),
                        "'target' goes with execution container, service or process, "
                        "not host");
        size_t mark = dp_enter_key(p, "probe");
        if ((r = dp_parse_probe(p, dp_get(n, "probe"), &c->probe)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int parse_checks(struct dparser *p, const struct ynode *v, size_t step, struct drill_step *st) {
        int r = dp_want_list(p, v, 1, DRILL_LIST_MAX);
        if (r < 0)
                return r;
        st->n_checks = v->n_items;
        st->checks = arena_alloc_array(p->arena, v->n_items, sizeof(*st->checks));
        if (!st->checks)
                return dp_oom(p);
        for (size_t i = 0; i < v->n_items; i++) {
                size_t mark = dp_enter_index(p, i);
                r = st->kind == STEP_CHECK ? parse_legacy_check(p, v->items[i], step, i, &st->checks[i])
                                           : parse_check_spec(p, v->items[i], step, i, &st->checks[i]);
                if (r < 0)
                        return r;
                dp_leave(p, mark);
        }
        return 0;
}

static int parse_step(struct dparser *p, const struct ynode *n, size_t index, struct drill_step *st) {
        int r, kind = 0;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0)
                return r;
        if (n->n_pairs != 1)
                return dp_fail(
                        p, n,
                        "a step has exactly one key (parallel, sequential, wait, check or check_spec), got "
                        "%zu",
                        n->n_pairs);
        const struct ypair *pair = &n->pairs[0];
        if ((r = dp_enum_node(p, pair->key, step_kind_table, _STEP_KIND_MAX, &kind)) < 0)
                return r;
        st->kind = (enum step_kind)kind;
        st->pos = dp_pos(pair->key);
        size_t mark = dp_enter_key(p, pair->key->text);
        if (ynode_is_null(pair->value))
                return dp_fail(p, pair->value, "needs a value");
        switch (st->kind) {
        case STEP_PARALLEL:
        case STEP_SEQUENTIAL: r = parse_names_step(p, pair->value, st); break;
        case STEP_WAIT: r = parse_wait(p, pair->value, st); break;
        default: r = parse_checks(p, pair->value, index, st); break;
        }
        if (r >= 0)
                dp_leave(p, mark);
        return r;
}

int dp_parse_steps(struct dparser *p, const struct ynode *list) {
        size_t mark = dp_enter_key(p, "execution");
        int r = dp_want_list(p, list, 1, DRILL_LIST_MAX);
        if (r < 0)
                return r;
        struct drill_spec *s = p->spec;
        s->n_steps = list->n_items;
        s->steps = arena_alloc_array(p->arena, list->n_items, sizeof(*s->steps));
        if (!s->steps)
                return dp_oom(p);
        for (size_t i = 0; i < list->n_items; i++) {
                size_t item = dp_enter_index(p, i);
                if ((r = parse_step(p, list->items[i], i, &s->steps[i])) < 0)
                        return r;
                dp_leave(p, item);
        }
        dp_leave(p, mark);
        return 0;
}
