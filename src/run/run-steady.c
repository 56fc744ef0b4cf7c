#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steady-state.h"

/* Steady state in a run (docs/drill-format.md "steady_state"), its second
 * half: steady-state.c judges each (phase, assertion, signal) over what
 * run-steady-capture.c took, and the evaluations are stored. */

#define SERIES_MAX 256

/* The values of series among r->obs[from, to) (during: only samples in the
 * fault windows); a value its probe failed to measure is NAN. */
static size_t values_of(
        const struct runner *r, const char *series, size_t from, size_t to, bool during, double *v) {
        size_t n = 0;
        for (size_t i = from; i < to && i < r->n_obs; i++) {
                const struct observation *o = &r->obs[i];
                if (strcmp(o->source, series) != 0 ||
                    (during && !fault_windows_contain(
                                       r->windows, r->windows ? r->plan->n_faults : 0,
                                       CRITERION_WINDOW_DURING, o->began_ms, o->t_ms)))
                        continue;
                v[n++] = o->error ? NAN : o->value;
        }
        return n;
}

json_t *run_number_json(double v) {
        return isfinite(v) ? json_real(v) : json_null();
}

static json_t *values_json(const double *v, size_t n) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                json_array_append_new(a, run_number_json(v[i]));
        return a;
}

/* The baseline of signal i: --baseline-from's, else the pre capture's; its row. */
static double baseline_of(struct runner *r, size_t i, double *v, size_t *ret_finite) {
        const struct drill_ss_signal *s = &r->plan->spec->steady_state.signals[i];
        char series[SERIES_MAX];
        ss_series_of(s, series, sizeof(series));
        size_t n = values_of(r, series, r->ss_pre_from, r->ss_pre_to, false, v);
        double b = ss_statistic(v, n, ret_finite);
        if (r->ss_given_b) {
                b = r->ss_given_b[i];
                *ret_finite = isfinite(b) ? (size_t)r->plan->spec->steady_state.samples : 0;
        }
        json_t *values = values_json(v, n);
        char *text = values ? json_dumps(values, JSON_COMPACT) : NULL;
        struct mh_error e = { 0 };
        if (text && !runner_evidence_lost(r) &&
            evidence_ss_baseline(r->opt->evidence, r->run_id, s->name, series, (int64_t)n, b, text, &e) < 0)
                runner_evidence_failed(r, "a steady-state baseline", &e);
        free(text);
        json_decref(values);
        return b;
}

static json_t *expectation_of(const struct drill_ss_signal *s, const struct drill_ss_phase *ph) {
        json_t *x = json_object(), *bounds = json_object();
        if (s->has_lte)
                json_object_set_new(bounds, "lte", json_real(s->lte));
        if (s->has_gte)
                json_object_set_new(bounds, "gte", json_real(s->gte));
        if (s->has_eq)
                json_object_set_new(bounds, "eq", json_real(s->eq));
        if (s->has_at_most)
                json_object_set_new(bounds, "at_most", json_real(s->at_most));
        if (s->has_at_most_relative)
                json_object_set_new(bounds, "at_most_relative", json_real(s->at_most_relative));
        json_object_set_new(x, s->has_expect ? "expect" : "tolerance", bounds);
        if (ph->has_within)
                json_object_set_new(x, "within", json_real(ph->within));
        return x;
}

static void record_evaluation(
        struct runner *r, const struct ss_evaluation *ev, const struct drill_ss_phase *ph) {
        json_t *m = json_pack(
                "{s:o, s:o, s:o, s:I, s:s}", "d", run_number_json(ev->d), "b", run_number_json(ev->b),
                "delta_pct", run_number_json(ev->delta_pct), "samples", (json_int_t)ev->samples, "reason",
                ev->reason);
        json_t *x = expectation_of(ev->signal, ph);
        char *mt = m ? json_dumps(m, JSON_COMPACT) : NULL, *xt = x ? json_dumps(x, JSON_COMPACT) : NULL;
        struct evidence_ss_evaluation row = { .phase = ss_phase_to_string(ev->phase),
                                              .assertion = ss_assertion_to_string(ev->assertion),
                                              .signal = ev->signal->name,
                                              .severity = severity_to_string(ev->signal->severity),
                                              .verdict = ss_verdict_to_string(ev->verdict),
                                              .measured_json = mt,
                                              .expectation_json = xt,
                                              .passed = ev->passed };
        struct mh_error e = { 0 };
        if (mt && xt && !runner_evidence_lost(r) &&
            evidence_ss_evaluation(r->opt->evidence, r->run_id, &row, &e) < 0)
                runner_evidence_failed(r, "a steady-state evaluation", &e);
        free(mt);
        free(xt);
        json_decref(m);
        json_decref(x);
}

static size_t signal_index(const struct drill_steady_state *ss, const char *name) {
        for (size_t i = 0; i < ss->n_signals; i++)
                if (strcmp(ss->signals[i].name, name) == 0)
                        return i;
        return ss->n_signals; /* refused at validation (drill-refs.c) */
}

/* d of signal i in phase ph, over how many finite samples. */
static double measured(struct runner *r, size_t i, enum ss_phase ph, double *v, size_t *ret_finite) {
        char series[SERIES_MAX];
        size_t n = 0, during_to = r->ss_post_taken ? r->ss_post_from : r->n_obs;
        ss_series_of(&r->plan->spec->steady_state.signals[i], series, sizeof(series));
        if (ph == SS_PHASE_PRE)
                n = values_of(r, series, r->ss_pre_from, r->ss_pre_to, false, v);
        else if (ph == SS_PHASE_DURING)
                n = values_of(r, series, r->ss_pre_to, during_to, true, v);
        else if (r->ss_post_taken)
                n = values_of(r, series, r->ss_post_from, r->ss_post_to, false, v);
        return ss_statistic(v, n, ret_finite);
}

static size_t count_assertions(const struct drill_steady_state *ss) {
        size_t n = 0;
        for (size_t i = 0; i < ss->n_phases; i++)
                n += ss->phases[i].assert_unchanged.n + ss->phases[i].assert_degraded.n +
                     ss->phases[i].assert_recovered.n;
        return n;
}

static void judge_list(
        struct runner *r, const struct drill_ss_phase *ph, enum ss_assertion a,
        const struct drill_names *names, const double *b, const size_t *b_finite, double *scratch) {
        const struct drill_steady_state *ss = &r->plan->spec->steady_state;
        struct run_result *res = r->result;
        for (size_t k = 0; k < names->n; k++) {
                size_t i = signal_index(ss, names->v[k]);
                if (i == ss->n_signals)
                        continue;
                struct ss_input in = { .signal = &ss->signals[i],
                                       .phase = ph->phase,
                                       .assertion = a,
                                       .has_within = ph->has_within,
                                       .within = ph->within,
                                       .b = b[i],
                                       .b_finite = b_finite[i],
                                       .needed = (size_t)ss->samples };
                in.d = measured(r, i, ph->phase, scratch, &in.d_finite);
                ss_evaluate(&in, &res->ss[res->n_ss]);
                record_evaluation(r, &res->ss[res->n_ss], ph);
                res->n_ss++;
        }
}

/* A failed critical assertion (insufficient included) fails the verdict. */
static void steady_verdict(struct runner *r) {
        struct run_result *res = r->result;
        const struct drill_spec *spec = r->plan->spec;
        bool critical_failed = false;
        for (size_t i = 0; i < res->n_ss; i++)
                critical_failed = critical_failed ||
                                  (!res->ss[i].passed && res->ss[i].signal->severity == SEVERITY_CRITICAL);
        if (res->status != RUN_STATUS_COMPLETED || res->n_ss == 0)
                return;
        if (critical_failed)
                res->verdict = VERDICT_FAIL;
        else if (res->verdict == VERDICT_UNDECIDED && !(spec->success.present && spec->success.n_criteria))
                res->verdict = VERDICT_PASS;
}

void runner_steady_judge(struct runner *r) {
        const struct drill_steady_state *ss = &r->plan->spec->steady_state;
        struct run_result *res = r->result;
        size_t n = count_assertions(ss);
        if (!ss->present)
                return;
        double *b = calloc(ss->n_signals, sizeof(*b)), *scratch = calloc(r->n_obs + 1, sizeof(*scratch));
        size_t *b_finite = calloc(ss->n_signals, sizeof(*b_finite));
        res->ss = calloc(n ? n : 1, sizeof(*res->ss));
        if (b && scratch && b_finite && res->ss) {
                for (size_t i = 0; i < ss->n_signals; i++)
                        b[i] = baseline_of(r, i, scratch, &b_finite[i]);
                for (size_t i = 0; i < ss->n_phases; i++) {
                        const struct drill_ss_phase *ph = &ss->phases[i];
                        judge_list(r, ph, SS_ASSERT_UNCHANGED, &ph->assert_unchanged, b, b_finite, scratch);
                        judge_list(r, ph, SS_ASSERT_DEGRADED, &ph->assert_degraded, b, b_finite, scratch);
                        judge_list(r, ph, SS_ASSERT_RECOVERED, &ph->assert_recovered, b, b_finite, scratch);
                }
                steady_verdict(r);
        }
        free(b);
        free(scratch);
        free(b_finite);
}
