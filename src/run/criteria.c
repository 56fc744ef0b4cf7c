#include "run-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/stats.h"

/* The reference's rules (domain/success.py): a boolean is never a number and
 * a number is never a boolean, except that a boolean criterion accepts 0/1. */
static bool holds(const struct drill_criterion *c, const struct observation *o) {
        bool numeric = o->kind != OBS_VALUE_BOOLEAN;
        switch (c->type) {
        case CRITERION_STATUS: return numeric && o->value == (double)c->expected;
        case CRITERION_LATENCY: return numeric && o->value < c->lt_ms;
        case CRITERION_METRIC:
                return numeric && (!c->has_gt || o->value > c->gt) && (!c->has_lt || o->value < c->lt);
        case CRITERION_COUNT: return numeric && o->value >= (double)c->gte;
        default:
                return (o->value != 0) == c->value &&
                       (o->kind == OBS_VALUE_BOOLEAN || o->value == 0 || o->value == 1);
        }
}

/* What was observed ("latency=31.2ms") and what it is held to ("bound=<500.0ms"; none for a metric). */
static void value_text(
        const struct drill_criterion *c, const struct observation *o, char *buf, size_t size) {
        switch (c->type) {
        case CRITERION_STATUS: snprintf(buf, size, "status=%.0f", o->value); break;
        case CRITERION_LATENCY: snprintf(buf, size, "latency=%.1fms", o->value); break;
        case CRITERION_METRIC: snprintf(buf, size, "value=%g", o->value); break;
        case CRITERION_COUNT: snprintf(buf, size, "count=%.0f", o->value); break;
        default: snprintf(buf, size, "value=%s", o->value != 0 ? "true" : "false"); break;
        }
}

static void bound_text(const struct drill_criterion *c, char *buf, size_t size) {
        switch (c->type) {
        case CRITERION_STATUS: snprintf(buf, size, " expected=%" PRId64, c->expected); break;
        case CRITERION_LATENCY: snprintf(buf, size, " bound=<%.1fms", c->lt_ms); break;
        case CRITERION_METRIC: snprintf(buf, size, "%s", ""); break;
        case CRITERION_COUNT: snprintf(buf, size, " bound=>=%" PRId64, c->gte); break;
        default: snprintf(buf, size, " expected=%s", c->value ? "true" : "false"); break;
        }
}

bool criterion_judge(
        const struct drill_criterion *c, const struct observation *o, char *detail, size_t size) {
        char value[64], bound[64];
        value_text(c, o, value, sizeof(value));
        bound_text(c, bound, sizeof(bound));
        snprintf(detail, size, "%s%s", value, bound);
        return holds(c, o);
}

/* What a series of samples holds: how many satisfy the criterion, and its
 * order statistics. Percentiles are nearest-rank: the smallest sample with
 * at least p% of the samples at or below it. */
struct series {
        size_t holding, first_holding, first_failing;
        double max, min, mean, p50, p95, p99;
        bool boolean; /* a boolean sample among them */
};

static int series_of(
        const struct drill_criterion *c, const struct observation *s, size_t n, struct series *ret) {
        double *v = malloc(n * sizeof(*v)), sum = 0;
        struct series st = { .first_holding = n, .first_failing = n };
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                bool ok = holds(c, &s[i]);
                st.holding += ok;
                if (ok && st.first_holding == n)
                        st.first_holding = i;
                if (!ok && st.first_failing == n)
                        st.first_failing = i;
                st.boolean = st.boolean || s[i].kind == OBS_VALUE_BOOLEAN;
                v[i] = s[i].value;
                sum += v[i];
        }
        doubles_sort(v, n);
        st.min = v[0];
        st.max = v[n - 1];
        st.mean = sum / (double)n;
        st.p50 = sorted_percentile(v, n, 50);
        st.p95 = sorted_percentile(v, n, 95);
        st.p99 = sorted_percentile(v, n, 99);
        free(v);
        *ret = st;
        return 0;
}

static double statistic(const struct series *st, enum criterion_over over) {
        switch (over) {
        case CRITERION_OVER_MAX: return st->max;
        case CRITERION_OVER_MIN: return st->min;
        case CRITERION_OVER_P50: return st->p50;
        case CRITERION_OVER_P95: return st->p95;
        case CRITERION_OVER_P99: return st->p99;
        default: return st->mean;
        }
}

/* The sample shown, and whether the criterion holds over the series. */
static bool judge_series(
        const struct drill_criterion *c, const struct observation *s, size_t n, const struct series *st,
        struct observation *ret_shown) {
        *ret_shown = s[n - 1];
        switch (c->over) {
        case CRITERION_OVER_LAST: return holds(c, &s[n - 1]);
        case CRITERION_OVER_ALL:
                if (st->holding < n)
                        *ret_shown = s[st->first_failing];
                return st->holding == n;
        case CRITERION_OVER_ANY:
                if (st->holding > 0)
                        *ret_shown = s[st->first_holding];
                return st->holding > 0;
        default:
                ret_shown->value = statistic(st, c->over);
                ret_shown->kind = st->boolean ? OBS_VALUE_BOOLEAN : s[n - 1].kind;
                return holds(c, ret_shown);
        }
}

/* 411 for 411.0, 401.5 for 401.457: context, not the judged value. */
static const char *short_number(double v, char *buf, size_t size) {
        size_t n = (size_t)snprintf(buf, size, "%.1f", v);
        if (n >= 2 && n < size && strcmp(buf + n - 2, ".0") == 0)
                buf[n - 2] = '\0';
        return buf;
}

/* "(max of 8)", "(last of 8; max 411, p95 411)", "(all of 5 in 'during': 3 fail)". */
static void judged_text(
        const struct drill_criterion *c, size_t n, const struct series *st, bool ok, char *buf,
        size_t size) {
        size_t len = (size_t)snprintf(buf, size, "%s of %zu", criterion_over_to_string(c->over), n);
        if (c->window != CRITERION_WINDOW_WHOLE && len < size)
                len += (size_t)snprintf(
                        buf + len, size - len, " in '%s'", criterion_window_to_string(c->window));
        if (c->over == CRITERION_OVER_ALL && !ok && len < size)
                len += (size_t)snprintf(buf + len, size - len, ": %zu fail", n - st->holding);
        if (c->over == CRITERION_OVER_ANY && len < size)
                len += (size_t)snprintf(buf + len, size - len, ": %zu hold", st->holding);
        char max[32], p95[32];
        if (c->type != CRITERION_BOOLEAN && c->over <= CRITERION_OVER_ANY && n > 1 && len < size)
                snprintf(
                        buf + len, size - len, "; max %s, p95 %s", short_number(st->max, max, sizeof(max)),
                        short_number(st->p95, p95, sizeof(p95)));
}

bool criterion_judge_samples(
        const struct drill_criterion *c, const struct observation *s, size_t n, char *detail, size_t size) {
        char value[64], how[128], bound[64];
        struct observation shown;
        struct series st;

        if (n == 0 && c->window == CRITERION_WINDOW_WHOLE) {
                snprintf(detail, size, "no observation recorded");
                return false;
        }
        if (n == 0) {
                snprintf(
                        detail, size, "no observation in window '%s'",
                        criterion_window_to_string(c->window));
                return false;
        }
        if (n == 1 && !c->has_over && !c->has_window) /* a check's one observation, as in the reference */
                return criterion_judge(c, &s[0], detail, size);
        if (series_of(c, s, n, &st) < 0) {
                snprintf(detail, size, "out of memory judging %zu samples", n);
                return false;
        }
        bool ok = judge_series(c, s, n, &st, &shown);
        value_text(c, &shown, value, sizeof(value));
        judged_text(c, n, &st, ok, how, sizeof(how));
        bound_text(c, bound, sizeof(bound));
        snprintf(detail, size, "%s (%s)%s", value, how, bound);
        return ok;
}
