#include "run-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/stats.h"

/* An SLO against the observations (docs/drill-format.md "slo"): pure, so
 * tests/unit/test-slo.c feeds it recorded series. */

struct slo_window {
        double *v; /* the values, sorted */
        size_t n;
        double sum, last;
        bool boolean, error;
        size_t failed; /* boolean samples that were false */
};

static bool in_window(const struct drill_slo *s, const struct observation *o, double end_ms) {
        return strcmp(o->source, s->metric) == 0 && o->t_ms <= end_ms &&
               o->t_ms > end_ms - (double)s->window_s * 1000.0;
}

static int window_of(
        const struct drill_slo *s, const struct observation *obs, size_t n, double end_ms,
        struct slo_window *w) {
        *w = (struct slo_window){ .v = malloc((n ? n : 1) * sizeof(double)) };
        if (!w->v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const struct observation *o = &obs[i];
                if (!in_window(s, o, end_ms))
                        continue;
                w->error = w->error || o->error;
                w->boolean = w->boolean || o->kind == OBS_VALUE_BOOLEAN;
                w->failed += o->kind == OBS_VALUE_BOOLEAN && o->value == 0;
                w->v[w->n++] = o->value;
                w->sum += o->value;
                w->last = o->value;
        }
        doubles_sort(w->v, w->n);
        return 0;
}

static double over_value(const struct slo_window *w, enum criterion_over over) {
        switch (over) {
        case CRITERION_OVER_LAST: return w->last;
        case CRITERION_OVER_MAX: return w->v[w->n - 1];
        case CRITERION_OVER_MIN: return w->v[0];
        case CRITERION_OVER_P50: return sorted_percentile(w->v, w->n, 50);
        case CRITERION_OVER_P99: return sorted_percentile(w->v, w->n, 99);
        case CRITERION_OVER_MEAN: return w->sum / (double)w->n;
        default: return sorted_percentile(w->v, w->n, 95);
        }
}

/* The observed value, and the name of the statistic ("p95", "share"...). */
static double observed_of(const struct drill_slo *s, const struct slo_window *w, const char **ret_stat) {
        enum criterion_over over = s->kind == SLO_SATURATION ? CRITERION_OVER_MAX : CRITERION_OVER_P95;
        switch (s->kind) {
        case SLO_ERROR_BUDGET:
                *ret_stat = w->boolean ? "failed_share" : "mean";
                return w->boolean ? (double)w->failed / (double)w->n : w->sum / (double)w->n;
        case SLO_ABSENCE: *ret_stat = "sum"; return w->sum;
        default:
                if (s->has_over)
                        over = s->over;
                *ret_stat = criterion_over_to_string(over);
                return over_value(w, over);
        }
}

static bool slo_compare(enum slo_operator op, double observed, double threshold) {
        switch (op) {
        case SLO_OP_LT: return observed < threshold;
        case SLO_OP_LTE: return observed <= threshold;
        case SLO_OP_GT: return observed > threshold;
        case SLO_OP_GTE: return observed >= threshold;
        default: return observed == threshold;
        }
}

/* "ms" and "%" stick to the number; other units follow it after a space. */
static const char *unit_sep(const char *unit) {
        return !unit[0] || strcmp(unit, "ms") == 0 || strcmp(unit, "s") == 0 || strcmp(unit, "%") == 0 ? ""
                                                                                                       : " ";
}

/* 12.3, 0.0234, 1234: enough digits for a latency and for a ratio. */
static const char *number(double v, char *buf, size_t size) {
        snprintf(buf, size, fabs(v) >= 1000 ? "%.0f" : "%.4g", v);
        return buf;
}

static void judged(
        const struct drill_slo *s, const char *stat, double observed, size_t samples, const char *span,
        struct slo_result *ret) {
        const char *sep = unit_sep(s->unit);
        char value[32], bound[32];
        ret->observed = observed;
        ret->samples = samples;
        ret->passed = slo_compare(s->op, observed, s->threshold);
        snprintf(
                ret->detail, sizeof(ret->detail), "%s=%s%s%s %s %s%s%s (%zu samples %s)", stat,
                number(observed, value, sizeof(value)), sep, s->unit, slo_operator_to_string(s->op),
                number(s->threshold, bound, sizeof(bound)), sep, s->unit, samples, span);
}

static void unavailable(const struct drill_slo *s, const char *why, size_t samples, struct slo_result *ret) {
        ret->passed = false;
        ret->observed = NAN;
        ret->samples = samples;
        snprintf(
                ret->detail, sizeof(ret->detail),
                "observation unavailable (%s) (%zu samples in %" PRId64 "s)", why, samples, s->window_s);
}

/* ms from the last undo to the first sample begun after it that holds. */
static void recovery(
        const struct drill_slo *s, const struct observation *obs, size_t n, double undone_ms,
        struct slo_result *ret) {
        size_t after = 0;
        if (isinf(undone_ms)) {
                unavailable(s, "missing: no fault of the run was undone", 0, ret);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                if (strcmp(obs[i].source, s->metric) != 0 || obs[i].began_ms < undone_ms)
                        continue;
                after++;
                if (obs[i].kind == OBS_VALUE_BOOLEAN && obs[i].value != 0) {
                        judged(s, "recovery", obs[i].t_ms - undone_ms, after, "after the undo", ret);
                        return;
                }
        }
        ret->passed = false;
        ret->observed = NAN;
        ret->samples = after;
        snprintf(
                ret->detail, sizeof(ret->detail), "not recovered: none of %zu samples after the undo held",
                after);
}

void slo_judge(
        const struct drill_slo *s, const struct observation *obs, size_t n, double steps_end_ms,
        double last_undone_ms, struct slo_result *ret) {
        struct slo_window w;
        char span[48];
        const char *stat = "";

        *ret = (struct slo_result){ .slo = s, .observed = NAN };
        if (s->kind == SLO_RECOVERY_TIME) {
                recovery(s, obs, n, last_undone_ms, ret);
                return;
        }
        if (window_of(s, obs, n, steps_end_ms, &w) < 0) {
                snprintf(ret->detail, sizeof(ret->detail), "out of memory judging %zu samples", n);
                return;
        }
        if (w.n == 0)
                unavailable(s, "missing", 0, ret);
        else if (w.error)
                unavailable(s, "error", w.n, ret);
        else {
                double v = observed_of(s, &w, &stat);
                snprintf(span, sizeof(span), "in %" PRId64 "s", s->window_s);
                judged(s, stat, v, w.n, span, ret);
        }
        free(w.v);
}
