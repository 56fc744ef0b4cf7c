#include "drill-parse-internal.h"

#include <ctype.h>
#include <string.h>

static bool is_identifier(const char *s) {
        if (!isalpha((unsigned char)*s) && *s != '_')
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && *s != '_')
                        return false;
        return true;
}

static int parse_bounds(
        struct dparser *p, const struct ynode *n, const char *key, const char *const *keys,
        int (*fill)(struct dparser *, const struct ynode *, struct drill_ss_signal *),
        struct drill_ss_signal *s) {
        const struct ynode *v = dp_get(n, key);
        size_t mark = dp_enter_key(p, key);
        int r;

        if ((r = dp_want(p, v, YNODE_MAP)) < 0 || (r = dp_check_keys(p, v, keys)) < 0)
                return r;
        if (v->n_pairs == 0)
                return dp_fail(
                        p, v, "needs at least one of %s, %s%s%s", keys[0], keys[1], keys[2] ? ", " : "",
                        keys[2] ? keys[2] : "");
        if ((r = fill(p, v, s)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

static int fill_expect(struct dparser *p, const struct ynode *v, struct drill_ss_signal *s) {
        int r;
        if ((r = dp_num(p, v, "lte", -1e300, 1e300, &s->has_lte, &s->lte)) < 0 ||
            (r = dp_num(p, v, "gte", -1e300, 1e300, &s->has_gte, &s->gte)) < 0 ||
            (r = dp_num(p, v, "eq", -1e300, 1e300, &s->has_eq, &s->eq)) < 0)
                return r;
        if (s->has_lte && s->has_gte && s->lte < s->gte)
                return dp_fail(p, v, "can never hold: lte %g is below gte %g", s->lte, s->gte);
        return 0;
}

static int fill_tolerance(struct dparser *p, const struct ynode *v, struct drill_ss_signal *s) {
        int r = dp_num(p, v, "at_most", 0, 1e300, &s->has_at_most, &s->at_most);
        if (r < 0)
                return r;
        return dp_num(p, v, "at_most_relative", 1.0, 1e300, &s->has_at_most_relative, &s->at_most_relative);
}

static int parse_signal(struct dparser *p, const struct ynode *n, struct drill_ss_signal *s) {
        static const char *const keys[] = { "name",      "source_id",       "metric",   "expect",
                                            "tolerance", "baseline_window", "severity", NULL };
        static const char *const expect_keys[] = { "lte", "gte", "eq", NULL };
        static const char *const tolerance_keys[] = { "at_most", "at_most_relative", NULL };
        int r;

        s->pos = dp_pos(n);
        s->severity = SEVERITY_WARNING;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "name")) < 0 || (r = dp_require(p, n, "source_id")) < 0 ||
            (r = dp_id(p, n, "name", &s->name)) < 0 || (r = dp_id(p, n, "source_id", &s->source_id)) < 0 ||
            (r = dp_id(p, n, "metric", &s->metric)) < 0 ||
            (r = DP_ENUM(p, n, "severity", severity, &s->severity)) < 0)
                return r;
        if (!is_identifier(s->name))
                return dp_fail(
                        p, dp_get(n, "name"), "signal name '%s' is not an identifier (letters, digits, _)",
                        s->name);
        s->has_expect = dp_get(n, "expect");
        s->has_tolerance = dp_get(n, "tolerance");
        if (s->has_expect == s->has_tolerance)
                return dp_fail(p, n, "a signal needs exactly one of 'expect' or 'tolerance'");
        if (s->has_expect && dp_get(n, "baseline_window"))
                return dp_fail(
                        p, dp_get(n, "baseline_window"), "'baseline_window' only goes with 'tolerance'");
        if (s->has_expect)
                return parse_bounds(p, n, "expect", expect_keys, fill_expect, s);
        if ((r = parse_bounds(p, n, "tolerance", tolerance_keys, fill_tolerance, s)) < 0)
                return r;
        s->has_baseline_window = dp_get(n, "baseline_window");
        return dp_dur(p, n, "baseline_window", 1, 24LL * 3600 * 1000, &s->baseline_window_ms);
}

static int parse_assert_list(
        struct dparser *p, const struct ynode *body, const char *key, struct drill_names *ret) {
        const struct ynode *v = dp_get(body, key);
        if (!v)
                return 0;
        size_t mark = dp_enter_key(p, key);
        int r = dp_names(p, v, 1, ret);
        if (r >= 0)
                dp_leave(p, mark);
        return r;
}

static int parse_phase(struct dparser *p, const struct ynode *n, struct drill_ss_phase *ph) {
        static const char *const names[] = { "pre", "before", "during", "post", "after" };
        static const enum ss_phase phase_of[] = { SS_PHASE_PRE, SS_PHASE_PRE, SS_PHASE_DURING, SS_PHASE_POST,
                                                  SS_PHASE_POST };
        static const char *const keys[] = { "assert_unchanged", "assert_degraded", "assert_recovered",
                                            "within", NULL };
        int which = 0, r;

        if ((r = dp_want(p, n, YNODE_MAP)) < 0)
                return r;
        if (n->n_pairs != 1)
                return dp_fail(p, n, "a phase has exactly one key (pre, during or post)");
        if ((r = dp_enum_node(p, n->pairs[0].key, names, ELEMENTSOF(names), &which)) < 0)
                return r;
        const struct ynode *body = n->pairs[0].value;
        ph->pos = dp_pos(n);
        ph->phase = phase_of[which];
        size_t mark = dp_enter_key(p, names[which]);
        if ((r = dp_want(p, body, YNODE_MAP)) < 0 || (r = dp_check_keys(p, body, keys)) < 0)
                return r;
        if (body->n_pairs == 0)
                return dp_fail(p, body, "an empty phase asserts nothing");
        if ((r = parse_assert_list(p, body, "assert_unchanged", &ph->assert_unchanged)) < 0 ||
            (r = parse_assert_list(p, body, "assert_degraded", &ph->assert_degraded)) < 0 ||
            (r = parse_assert_list(p, body, "assert_recovered", &ph->assert_recovered)) < 0 ||
            (r = dp_num(p, body, "within", 0, 1e300, &ph->has_within, &ph->within)) < 0)
                return r;
        if (ph->has_within && ph->assert_degraded.n == 0)
                return dp_fail(p, dp_get(body, "within"), "'within' only goes with 'assert_degraded'");
        if (ph->has_within && ph->within <= 0)
                return dp_fail(p, dp_get(body, "within"), "'within' must be greater than 0");
        dp_leave(p, mark);
        return 0;
}

static int parse_capture(struct dparser *p, const struct ynode *n, struct drill_steady_state *ss) {
        static const char *const keys[] = { "samples", "window", NULL };
        const struct ynode *v = dp_get(n, "capture");
        if (!v)
                return 0;
        size_t mark = dp_enter_key(p, "capture");
        int r;
        if ((r = dp_want(p, v, YNODE_MAP)) < 0 || (r = dp_check_keys(p, v, keys)) < 0 ||
            (r = dp_int(p, v, "samples", 1, 10000, &ss->samples)) < 0 ||
            (r = dp_dur(p, v, "window", 1, 24LL * 3600 * 1000, &ss->window_ms)) < 0)
                return r;
        dp_leave(p, mark);
        return 0;
}

int dp_parse_steady_state(struct dparser *p, const struct ynode *n) {
        static const char *const keys[] = { "capture", "signals", "phases", NULL };
        struct drill_steady_state *ss = &p->spec->steady_state;
        size_t mark = dp_enter_key(p, "steady_state");
        int r;

        ss->present = true;
        ss->samples = 5;
        ss->window_ms = 10000;
        if ((r = dp_want(p, n, YNODE_MAP)) < 0 || (r = dp_check_keys(p, n, keys)) < 0 ||
            (r = dp_require(p, n, "signals")) < 0 || (r = parse_capture(p, n, ss)) < 0)
                return r;
        size_t m = dp_enter_key(p, "signals");
        if ((r = DP_PARSE_LIST(p, dp_get(n, "signals"), ss->signals, ss->n_signals, parse_signal)) < 0)
                return r;
        dp_leave(p, m);
        if (dp_get(n, "phases")) {
                m = dp_enter_key(p, "phases");
                if ((r = DP_PARSE_LIST(p, dp_get(n, "phases"), ss->phases, ss->n_phases, parse_phase)) < 0)
                        return r;
                dp_leave(p, m);
        }
        dp_leave(p, mark);
        return 0;
}
