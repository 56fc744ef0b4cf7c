#include "steady-state.h"

#include <math.h>
#include <stdio.h>

#include "basic/macro.h"

static const char *const verdict_names[_SS_VERDICT_MAX] = {
        [SS_VERDICT_AS_HYPOTHESISED] = "as-hypothesised",
        [SS_VERDICT_DEGRADED_WITHIN] = "degraded-within-tolerance",
        [SS_VERDICT_DEGRADED_BEYOND] = "degraded-beyond-tolerance",
        [SS_VERDICT_NO_EFFECT] = "no-effect",
        [SS_VERDICT_NOT_RECOVERED] = "not-recovered",
};

static const char *const assertion_names[_SS_ASSERT_MAX] = {
        [SS_ASSERT_UNCHANGED] = "assert_unchanged",
        [SS_ASSERT_DEGRADED] = "assert_degraded",
        [SS_ASSERT_RECOVERED] = "assert_recovered",
};

const char *ss_verdict_to_string(enum ss_verdict v) {
        return v < _SS_VERDICT_MAX ? verdict_names[v] : NULL;
}

const char *ss_assertion_to_string(enum ss_assertion a) {
        return a < _SS_ASSERT_MAX ? assertion_names[a] : NULL;
}

double ss_statistic(const double *v, size_t n, size_t *ret_finite) {
        double max = NAN;
        size_t finite = 0;
        for (size_t i = 0; i < n; i++) {
                if (!isfinite(v[i]))
                        continue;
                max = finite == 0 || v[i] > max ? v[i] : max;
                finite++;
        }
        *ret_finite = finite;
        return max;
}

bool ss_holds(const struct drill_ss_signal *s, double d, double b) {
        if (!isfinite(d))
                return false;
        if (s->has_expect)
                return (!s->has_lte || d <= s->lte) && (!s->has_gte || d >= s->gte) &&
                       (!s->has_eq || d == s->eq);
        if (!isfinite(b))
                return false;
        double moved = fabs(d - b);
        return (s->has_at_most && moved <= s->at_most) ||
               (s->has_at_most_relative && moved <= fabs(b) * s->at_most_relative);
}

double ss_delta_pct(double d, double b) {
        if (!isfinite(d) || !isfinite(b) || b == 0)
                return NAN;
        return (d - b) / fabs(b) * 100.0;
}

/* §4.4: degraded is judged against ref (expect.lte, else the baseline). */
static enum ss_verdict degraded(const struct ss_input *in, bool held) {
        const struct drill_ss_signal *s = in->signal;
        if (held)
                return SS_VERDICT_NO_EFFECT;
        if (!in->has_within)
                return SS_VERDICT_DEGRADED_WITHIN;
        double ref = s->has_expect && s->has_lte ? s->lte : in->b;
        return in->d <= in->within * ref ? SS_VERDICT_DEGRADED_WITHIN : SS_VERDICT_DEGRADED_BEYOND;
}

static enum ss_verdict verdict_of(const struct ss_input *in, bool held) {
        switch (in->assertion) {
        case SS_ASSERT_DEGRADED: return degraded(in, held);
        case SS_ASSERT_RECOVERED: return held ? SS_VERDICT_AS_HYPOTHESISED : SS_VERDICT_NOT_RECOVERED;
        default: return held ? SS_VERDICT_AS_HYPOTHESISED : SS_VERDICT_DEGRADED_BEYOND;
        }
}

void ss_evaluate(const struct ss_input *in, struct ss_evaluation *ret) {
        *ret = (struct ss_evaluation){ .signal = in->signal,
                                       .phase = in->phase,
                                       .assertion = in->assertion,
                                       .verdict = SS_VERDICT_INSUFFICIENT,
                                       .d = in->d,
                                       .b = in->b,
                                       .delta_pct = ss_delta_pct(in->d, in->b),
                                       .samples = in->d_finite };
        if (in->b_finite < in->needed) {
                snprintf(
                        ret->reason, sizeof(ret->reason),
                        "insufficient baseline: %zu finite samples of the %zu capture.samples", in->b_finite,
                        in->needed);
                return;
        }
        if (in->d_finite == 0) {
                snprintf(
                        ret->reason, sizeof(ret->reason), "insufficient: no finite sample in phase %s",
                        ss_phase_to_string(in->phase));
                return;
        }
        bool held = ss_holds(in->signal, in->d, in->b);
        ret->verdict = verdict_of(in, held);
        ret->passed =
                ret->verdict == SS_VERDICT_AS_HYPOTHESISED || ret->verdict == SS_VERDICT_DEGRADED_WITHIN;
        snprintf(
                ret->reason, sizeof(ret->reason), "d=%.4g b=%.4g: %s", in->d, in->b,
                held ? "holds" : "moved");
}

/* The observation a signal reads: source_id, or source_id.metric. */
void ss_series_of(const struct drill_ss_signal *s, char *buf, size_t size) {
        if (s->metric)
                snprintf(buf, size, "%s.%s", s->source_id, s->metric);
        else
                snprintf(buf, size, "%s", s->source_id);
}
