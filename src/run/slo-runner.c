#include "run-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SLOs of a run (slo.c judges), their slo_outcomes rows, the run's
 * observation provenance, and what the SLOs do to the verdict. */

/* When the last fault the run sent was undone; INFINITY when one never was. */
static double last_undone(const struct runner *r) {
        double last = INFINITY;
        bool any = false;
        for (size_t i = 0; r->windows && i < r->plan->n_faults; i++) {
                if (isinf(r->windows[i].sent))
                        continue;
                if (isinf(r->windows[i].undone))
                        return INFINITY;
                last = any ? MAX(last, r->windows[i].undone) : r->windows[i].undone;
                any = true;
        }
        return last;
}

static void record_slo(struct runner *r, const struct slo_result *o) {
        const struct drill_slo *s = o->slo;
        struct evidence_slo_outcome row = {
                .name = s->name,
                .kind = slo_kind_to_string(s->kind),
                .metric = s->metric,
                .op = slo_operator_to_string(s->op),
                .unit = s->unit,
                .reason = o->detail,
                .threshold = s->threshold,
                .observed = o->observed,
                .window_s = s->window_s,
                .samples = (int64_t)o->samples,
                .passed = o->passed,
        };
        struct mh_error e = { 0 };
        if (!runner_evidence_lost(r) && evidence_slo_outcome(r->opt->evidence, r->run_id, &row, &e) < 0)
                runner_evidence_failed(r, "an SLO outcome", &e);
}

/* {sources, observations, by_source: {id: count}}: counts and names only. */
static void record_provenance(struct runner *r) {
        json_t *by = json_object();
        for (size_t i = 0; by && i < r->n_obs; i++) {
                json_t *c = json_object_get(by, r->obs[i].source);
                json_object_set_new(by, r->obs[i].source, json_integer(c ? json_integer_value(c) + 1 : 1));
        }
        json_t *p = json_pack(
                "{s:I, s:I, s:o}", "sources", (json_int_t)r->plan->spec->observability.n_sources,
                "observations", (json_int_t)r->n_obs, "by_source", by ? by : json_object());
        char *text = p ? json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        struct mh_error e = { 0 };
        if (text && !runner_evidence_lost(r) &&
            evidence_run_provenance(r->opt->evidence, r->run_id, text, &e) < 0)
                runner_evidence_failed(r, "the observation provenance", &e);
        free(text);
        json_decref(p);
}

void runner_slos(struct runner *r) {
        const struct drill_spec *spec = r->plan->spec;
        struct run_result *res = r->result;
        double end = isinf(r->steps_end_ms) || r->steps_end_ms == 0 ? monotonic_ms() : r->steps_end_ms;
        double undone = last_undone(r);
        size_t failed = 0;

        record_provenance(r);
        if (spec->n_slos == 0 || !(res->slos = calloc(spec->n_slos, sizeof(*res->slos))))
                return;
        res->n_slos = spec->n_slos;
        for (size_t i = 0; i < spec->n_slos; i++) {
                slo_judge(&spec->slos[i], r->obs, r->n_obs, end, undone, &res->slos[i]);
                record_slo(r, &res->slos[i]);
                failed += !res->slos[i].passed;
        }
        if (res->status != RUN_STATUS_COMPLETED)
                return; /* run_outcome_settle() leaves it undecided */
        bool criteria = spec->success.present && spec->success.n_criteria > 0;
        if (failed)
                res->verdict = VERDICT_FAIL;
        else if (!criteria)
                res->verdict = VERDICT_PASS;
}
