#pragma once

/* The steady-state evaluator (docs/drill-format.md "steady_state",
 * mayhem-spec.md §4.4): values in, verdicts out, no I/O. */

#include "run.h"

/* The statistic of a series: the nearest-rank percentile 100 (the max) of
 * its finite values; NAN when there are none. *ret_finite counts them. */
double ss_statistic(const double *v, size_t n, size_t *ret_finite);
/* Whether d holds for signal s against baseline b: every expect bound, or
 * |d-b| <= at_most, or |d-b| <= |b| * at_most_relative. */
bool ss_holds(const struct drill_ss_signal *s, double d, double b);
/* (d-b)/|b|*100; NAN when b is 0 or either is not finite. */
double ss_delta_pct(double d, double b);

/* One assertion: b over b_finite baseline samples (needed: capture.samples),
 * d over d_finite phase samples; within from the phase (has_within). */
struct ss_input {
        const struct drill_ss_signal *signal;
        enum ss_phase phase;
        enum ss_assertion assertion;
        bool has_within;
        double within;
        double b, d;
        size_t b_finite, d_finite, needed;
};
void ss_evaluate(const struct ss_input *in, struct ss_evaluation *ret);

/* The observation a signal reads: "source_id", or "source_id.metric". */
void ss_series_of(const struct drill_ss_signal *s, char *buf, size_t size);

const char *ss_verdict_to_string(enum ss_verdict v); /* NULL for insufficient */
const char *ss_assertion_to_string(enum ss_assertion a);
